#include "app/api/summaries_api.hpp"

#include <unistd.h>

#include <vector>

#include "app/rtc/rtc_server.hpp"
#include "app/stats/proc_reader.hpp"

namespace srs {

nlohmann::ordered_json build_summaries_data(ServerContext* ctx, const RtcServer* rtc) {
    SummaryInputs in;
    in.start_time = ctx->start_wall_us();
    char cwd[4096];
    if (getcwd(cwd, sizeof(cwd))) in.cwd = cwd;
    in.argv = read_proc_self_cmdline();
    uint64_t recv = 0, send = 0;
    std::vector<Client*> clients = ctx->clients().clients();
    for (const Client* c : clients) {
        recv += c->recv_bytes();
        send += c->send_bytes();
    }
    in.conn_srs = static_cast<int64_t>(clients.size());
    in.recv_bytes = recv;
    in.send_bytes = send;
    nlohmann::ordered_json data = ctx->proc_stats().summaries_json(in);
    if (rtc && rtc->running()) {
        RtcServer::Stats st = rtc->stats();
        const RtcPendingSessions::Limits& limits = rtc->pending().limits();
        data["rtc"] = {{"sessions", st.sessions},
                       {"pending", st.pending},
                       {"pending_max", limits.total},
                       {"pending_max_per_ip", limits.per_address},
                       {"pending_timeout", limits.timeout / kUsPerSecond},
                       {"pending_refused", st.pending_refused},
                       {"pending_expired", st.pending_expired}};
    }
    return data;
}

}  // namespace srs
