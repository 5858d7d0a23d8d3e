#include "app/conn/client.hpp"

namespace srs {

const char* client_kind_name(ClientKind kind) {
    switch (kind) {
        case ClientKind::kRtmpPlay:
            return "rtmp-play";
        case ClientKind::kFmlePublish:
            return "fmle-publish";
        case ClientKind::kFlashPublish:
            return "flash-publish";
        case ClientKind::kFlvPlay:
            return "flv-play";
        case ClientKind::kRtcPlay:
            return "rtc-play";
        case ClientKind::kRtcPublish:
            return "rtc-publish";
        case ClientKind::kEdgeIngest:
            return "edge-ingest";
        case ClientKind::kHlsPlay:
            return "hls-play";
        case ClientKind::kUnknown:
        default:
            return "";
    }
}

bool client_kind_publishes(ClientKind kind) {
    return kind == ClientKind::kFmlePublish || kind == ClientKind::kFlashPublish || kind == ClientKind::kRtcPublish ||
           kind == ClientKind::kEdgeIngest;
}

void ClientRegistry::add(Client* client) { clients_[client->cid()] = client; }

void ClientRegistry::remove(Client* client, bool failed) {
    auto it = clients_.find(client->cid());
    if (it == clients_.end() || it->second != client) return;
    clients_.erase(it);
    if (client->info().kind != ClientKind::kUnknown) finished_.clients++;
    if (failed && client->listed()) finished_.errors++;
    if (!client->owns_bytes()) return;
    finished_.recv_bytes += client->recv_bytes();
    finished_.send_bytes += client->send_bytes();
}

ClientTotals ClientRegistry::totals() const {
    ClientTotals t = finished_;
    for (const auto& kv : clients_) {
        const Client* c = kv.second;
        if (c->info().kind != ClientKind::kUnknown) t.clients++;
        if (!c->owns_bytes()) continue;
        t.recv_bytes += c->recv_bytes();
        t.send_bytes += c->send_bytes();
    }
    return t;
}

Client* ClientRegistry::find(const std::string& cid) const {
    auto it = clients_.find(cid);
    return it == clients_.end() ? nullptr : it->second;
}

std::vector<Client*> ClientRegistry::clients() const {
    std::vector<Client*> out;
    out.reserve(clients_.size());
    for (auto& kv : clients_) out.push_back(kv.second);
    return out;
}

void ClientRegistry::expire_all() {
    // A copy: a client may leave the registry as it is expired.
    for (Client* c : clients()) c->expire();
}

void ClientRegistry::sample_kbps(utime_t now_us) {
    for (auto& kv : clients_) kv.second->sample_kbps(now_us);
}

}  // namespace srs
