#include "app/http/hls_sessions.hpp"

namespace srs {

void HlsSession::expire() {
    if (interrupted_) return;
    interrupted_ = true;
    // SRS drops a kicked session from the clients list at once.
    unregister();
}

void HlsSession::unregister() {
    if (!clients_) return;
    clients_->remove(this, false);
    clients_ = nullptr;
    if (listed_) (*listed_)--;
}

HlsSession* HlsSessionTable::find(const std::string& id) const {
    auto it = sessions_.find(id);
    return it == sessions_.end() ? nullptr : it->second.get();
}

bool HlsSessionTable::id_free(const std::string& id) const {
    return !find(id) && (!clients_ || !clients_->find(id));
}

HlsSession* HlsSessionTable::create(const std::string& id, const std::string& ip, const ClientInfo& info,
                                    HookRequest hook, utime_t now_us, utime_t idle_us) {
    std::unique_ptr<HlsSession> s(new HlsSession(id, ip, std::move(hook)));
    s->info() = info;
    s->info().kind = ClientKind::kHlsPlay;
    s->deadline_us_ = now_us + idle_us;
    HlsSession* raw = s.get();
    sessions_[id] = std::move(s);
    if (clients_) {
        raw->clients_ = clients_;
        raw->listed_ = &listed_;
        listed_++;
        clients_->add(raw);
    }
    return raw;
}

void HlsSessionTable::touch(HlsSession* s, utime_t now_us, utime_t idle_us) {
    if (!s->interrupted_) s->deadline_us_ = now_us + idle_us;
}

void HlsSessionTable::drop(HlsSession* s) {
    s->unregister();
    sessions_.erase(s->id_);
}

std::vector<std::unique_ptr<HlsSession>> HlsSessionTable::take_expired(utime_t now_us) {
    std::vector<std::unique_ptr<HlsSession>> out;
    for (auto it = sessions_.begin(); it != sessions_.end();) {
        if (it->second->deadline_us_ > now_us) {
            ++it;
            continue;
        }
        it->second->unregister();
        it->second->listed_ = nullptr;  // the table's count is not its business any more
        out.push_back(std::move(it->second));
        it = sessions_.erase(it);
    }
    return out;
}

void HlsSessionTable::clear() {
    for (auto& kv : sessions_) kv.second->unregister();
    sessions_.clear();
}

}  // namespace srs
