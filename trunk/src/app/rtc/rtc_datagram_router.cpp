#include "app/rtc/rtc_datagram_router.hpp"

#include "app/rtc/rtc_session_context.hpp"
#include "core/log.hpp"
#include "kernel/demux.hpp"

namespace srs {

namespace {

// Told by the session while it handles one datagram: its peer verified a
// STUN request from an address it did not use yet (the first, or a NAT
// rebinding). That address is the datagram's origin: bind it, and give the
// session a copy of the path the datagram came by.
class OriginBinder : public RtcSession::AddressListener {
  public:
    OriginBinder(RtcRoutingTable* routes, const RtcReplyPath* origin) : routes_(routes), origin_(origin) {}
    void on_session_address(RtcSession* session, const StunAddress& addr) override {
        if (!session->send_path()) first_ = true;  // nothing bound before: its first verified binding
        routes_->bind(session, addr);
        session->bind_send_path(origin_->copy(), origin_->tcp_conn());
        srs_trace("RTC: session %s bound to %s", session->cid().c_str(), addr.to_string().c_str());
    }

    bool first() const { return first_; }

  private:
    RtcRoutingTable* routes_;
    const RtcReplyPath* origin_;
    bool first_ = false;
};

}  // namespace

void RtcDatagramRouter::deliver(uint8_t* data, size_t size, const StunAddress& from, RtcReplyPath* reply,
                                utime_t now) {
    stats_.rx_packets++;
    if (size == 0) {
        stats_.rx_dropped++;
        return;
    }
    DatagramKind kind = classify_datagram(data[0]);
    if (kind == DatagramKind::kStun) stats_.rx_stun++;
    if (kind == DatagramKind::kDtls) stats_.rx_dtls++;
    if (kind == DatagramKind::kRtp) stats_.rx_rtp++;
    RtcSession* session = nullptr;
    if (Error err = routes_->find(data, size, from, &session); err.failed()) {
        stats_.rx_dropped++;
        if (stats_.rx_dropped <= 10 || stats_.rx_dropped % 1000 == 0) {
            srs_warn("RTC: drop a STUN datagram from %s: %s (%llu dropped)", from.to_string().c_str(),
                     err.summary().c_str(), (unsigned long long)stats_.rx_dropped);
        }
        err.ignore();
        return;
    }
    if (!session) {
        stats_.rx_unknown_addr++;
        stats_.rx_dropped++;
        if (stats_.rx_unknown_addr <= 10 || stats_.rx_unknown_addr % 1000 == 0) {
            srs_warn("RTC: drop a datagram from %s (first byte %u, %zu bytes): no session for it (%llu such)",
                     from.to_string().c_str(), data[0], size, (unsigned long long)stats_.rx_unknown_addr);
        }
        return;
    }
    RtcSessionContext context(session->cid());
    // Only while it handles this datagram can the session's address move:
    // the binder knows the datagram's origin for that long.
    OriginBinder binder(routes_, reply);
    session->set_address_listener(&binder);
    Error err = session->handle_datagram(data, size, from, now, reply);
    session->set_address_listener(nullptr);
    // Told outside the peer's callbacks: the listener may close the session.
    if (binder.first() && listener_) listener_->on_session_verified(session, now);
    if (err.failed()) {
        stats_.rx_dropped++;
        if (session->counters().dropped <= 10 || session->counters().dropped % 1000 == 0) {
            srs_warn("RTC: session %s drops a datagram from %s: %s (%llu dropped)", session->cid().c_str(),
                     from.to_string().c_str(), err.summary().c_str(), (unsigned long long)session->counters().dropped);
        }
        err.ignore();
    }
}

}  // namespace srs
