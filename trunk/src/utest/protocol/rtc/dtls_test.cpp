// Unit tests of protocol/rtc/dtls: a client and a server endpoint wired in
// memory with a fake clock, with loss, reordering, duplication, garbage,
// fingerprint mismatch, timeouts and close_notify.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "protocol/rtc/dtls.hpp"
#include "utest/openssl_wall_clock.hpp"

using namespace srs;

namespace {

std::shared_ptr<DtlsCertificate> make_cert(DtlsKeyType type = DtlsKeyType::kEcdsaP256) {
    std::shared_ptr<DtlsCertificate> c;
    Error err = DtlsCertificate::create(type, &c);
    EXPECT_TRUE(err.ok()) << err.describe();
    return c;
}

std::vector<std::string> drain(DtlsEndpoint* ep) {
    std::vector<std::string> out;
    std::string d;
    while (ep->pop_datagram(&d)) out.push_back(d);
    return out;
}

// Delivers every datagram; errors are collected, not fatal.
int deliver(DtlsEndpoint* to, const std::vector<std::string>& ds, utime_t now) {
    int errors = 0;
    for (const auto& d : ds) {
        Error err = to->handle_datagram(reinterpret_cast<const uint8_t*>(d.data()), d.size(), now);
        if (err.failed()) ++errors;
    }
    return errors;
}

struct Pair {
    std::shared_ptr<DtlsCertificate> cc = make_cert();
    std::shared_ptr<DtlsCertificate> sc = make_cert();
    DtlsEndpoint client{cc, DtlsRole::kClient, sc->fingerprint()};
    DtlsEndpoint server{sc, DtlsRole::kServer, cc->fingerprint()};
    utime_t now = 1000 * kUsPerSecond;
    FakeWallClock wall{now};

    // Moves the fake clock, and OpenSSL's wall clock with it.
    void at(utime_t t) {
        now = t;
        wall.set(t);
    }
    void start() {
        Error e1 = server.start(now);
        EXPECT_TRUE(e1.ok()) << e1.describe();
        Error e2 = client.start(now);
        EXPECT_TRUE(e2.ok()) << e2.describe();
    }
    // Runs both ways until nothing is in flight; filter may drop/alter each side's batch.
    void run(const std::function<std::vector<std::string>(bool from_client, std::vector<std::string>)>& filter =
                 nullptr,
             int rounds = 20) {
        for (int i = 0; i < rounds; ++i) {
            auto c = drain(&client);
            auto s = drain(&server);
            if (c.empty() && s.empty()) return;
            if (filter) {
                c = filter(true, c);
                s = filter(false, s);
            }
            deliver(&server, c, now);
            deliver(&client, s, now);
        }
    }
};

}  // namespace

TEST(ProtocolDtlsTest, CertificateFingerprint) {
    auto c = make_cert();
    ASSERT_TRUE(c);
    EXPECT_EQ(95u, c->fingerprint().size());  // 32 bytes: 64 hex + 31 colons
    EXPECT_EQ(':', c->fingerprint()[2]);
    EXPECT_EQ(c->fingerprint(), dtls_fingerprint_sha256(c->x509()));
    auto d = make_cert();
    EXPECT_NE(c->fingerprint(), d->fingerprint());
}

TEST(ProtocolDtlsTest, HandshakeExportsSameKeysGcm) {
    Pair p;
    p.start();
    EXPECT_EQ(DtlsState::kConnecting, p.client.state());
    EXPECT_NE(kDtlsNoTimeout, p.client.next_timeout());
    p.run();
    ASSERT_EQ(DtlsState::kConnected, p.client.state()) << p.client.milestones();
    ASSERT_EQ(DtlsState::kConnected, p.server.state()) << p.server.milestones();
    const auto& ck = p.client.srtp_keys();
    const auto& sk = p.server.srtp_keys();
    EXPECT_EQ("SRTP_AEAD_AES_128_GCM", ck.profile);
    EXPECT_EQ(ck.profile, sk.profile);
    EXPECT_EQ(16u, ck.client_key.size());
    EXPECT_EQ(12u, ck.client_salt.size());
    EXPECT_EQ(ck.client_key, sk.client_key);
    EXPECT_EQ(ck.server_key, sk.server_key);
    EXPECT_EQ(ck.client_salt, sk.client_salt);
    EXPECT_EQ(ck.server_salt, sk.server_salt);
    EXPECT_NE(ck.client_key, ck.server_key);
    EXPECT_EQ(p.sc->fingerprint(), p.client.peer_fingerprint());
    EXPECT_EQ(p.cc->fingerprint(), p.server.peer_fingerprint());
    EXPECT_EQ(kDtlsNoTimeout, p.client.next_timeout());
    EXPECT_NE(std::string::npos, p.server.milestones().find("connected:SRTP_AEAD_AES_128_GCM"));
}

TEST(ProtocolDtlsTest, DatagramsFitMtu) {
    Pair p;
    p.start();
    p.run([](bool, std::vector<std::string> ds) {
        for (const auto& d : ds) EXPECT_LE(d.size(), kDtlsMtu + 64);
        return ds;
    });
    EXPECT_EQ(DtlsState::kConnected, p.server.state());
}

TEST(ProtocolDtlsTest, RsaCertificateHandshake) {
    Pair p;
    p.sc = make_cert(DtlsKeyType::kRsa2048);
    DtlsEndpoint client(p.cc, DtlsRole::kClient, p.sc->fingerprint());
    DtlsEndpoint server(p.sc, DtlsRole::kServer, p.cc->fingerprint());
    ASSERT_TRUE(server.start(p.now).ok());
    ASSERT_TRUE(client.start(p.now).ok());
    // Flights with an RSA certificate may span datagrams: deliver them reversed and twice.
    auto mangle = [](std::vector<std::string> ds) {
        std::vector<std::string> out;
        for (auto it = ds.rbegin(); it != ds.rend(); ++it) {
            out.push_back(*it);
            out.push_back(*it);
        }
        return out;
    };
    for (int i = 0; i < 10; ++i) {
        deliver(&server, mangle(drain(&client)), p.now);
        deliver(&client, mangle(drain(&server)), p.now);
    }
    EXPECT_EQ(DtlsState::kConnected, client.state()) << client.milestones();
    EXPECT_EQ(DtlsState::kConnected, server.state()) << server.milestones();
    // The server's first flight (hello, RSA certificate, key exchange, request) takes two datagrams at this MTU.
    EXPECT_NE(std::string::npos, server.milestones().find("flight1:2")) << server.milestones();
}

TEST(ProtocolDtlsTest, FingerprintMismatchFailsBothSides) {
    auto cc = make_cert();
    auto sc = make_cert();
    auto other = make_cert();
    DtlsEndpoint client(cc, DtlsRole::kClient, other->fingerprint());  // expects another server
    DtlsEndpoint server(sc, DtlsRole::kServer, cc->fingerprint());
    utime_t now = 0;
    ASSERT_TRUE(server.start(now).ok());
    ASSERT_TRUE(client.start(now).ok());
    int errors = 0;
    for (int i = 0; i < 10; ++i) {
        errors += deliver(&server, drain(&client), now);
        errors += deliver(&client, drain(&server), now);
    }
    EXPECT_EQ(DtlsState::kFailed, client.state());
    EXPECT_EQ(DtlsState::kFailed, server.state());
    EXPECT_GE(errors, 2);
    EXPECT_EQ(kDtlsNoTimeout, client.next_timeout());
    EXPECT_EQ(kDtlsNoTimeout, server.next_timeout());
    // Later datagrams are refused, not processed.
    uint8_t junk[13] = {22, 0xfe, 0xfd};
    Error err = client.handle_datagram(junk, sizeof(junk), now);
    EXPECT_EQ(kErrorDtlsState, err.code());
}

TEST(ProtocolDtlsTest, ServerRejectsWrongClientFingerprint) {
    auto cc = make_cert();
    auto sc = make_cert();
    auto other = make_cert();
    DtlsEndpoint client(cc, DtlsRole::kClient, sc->fingerprint());
    DtlsEndpoint server(sc, DtlsRole::kServer, other->fingerprint());
    ASSERT_TRUE(server.start(0).ok());
    ASSERT_TRUE(client.start(0).ok());
    Error first;
    for (int i = 0; i < 10; ++i) {
        for (const auto& d : drain(&client)) {
            Error err = server.handle_datagram(reinterpret_cast<const uint8_t*>(d.data()), d.size(), 0);
            if (err.failed() && first.ok()) first = std::move(err);
        }
        deliver(&client, drain(&server), 0);
    }
    EXPECT_EQ(kErrorDtlsFingerprint, first.code()) << first.describe();
    EXPECT_EQ(DtlsState::kFailed, server.state());
    EXPECT_EQ(DtlsState::kFailed, client.state());
}

TEST(ProtocolDtlsTest, LostFlightsAreRetransmittedOnTheFakeClock) {
    // Drop, once each, the first delivery of every flight in both directions.
    for (int lose = 0; lose < 4; ++lose) {
        Pair p;
        p.start();
        int batch = 0;
        bool dropped = false;
        auto filter = [&](bool, std::vector<std::string> ds) {
            if (ds.empty()) return ds;
            if (batch++ == lose && !dropped) {
                dropped = true;
                return std::vector<std::string>();
            }
            return ds;
        };
        p.run(filter);
        EXPECT_TRUE(dropped);
        for (int i = 0; i < 6 && p.server.state() != DtlsState::kConnected; ++i) {
            p.at(std::min(p.client.next_timeout(), p.server.next_timeout()));
            ASSERT_NE(kDtlsNoTimeout, p.now) << lose;
            ASSERT_TRUE(p.client.handle_timeout(p.now).ok());
            ASSERT_TRUE(p.server.handle_timeout(p.now).ok());
            p.run(filter);
        }
        // The client may still be waiting for the server's last flight: one more timeout.
        for (int i = 0; i < 6 && p.client.state() != DtlsState::kConnected; ++i) {
            p.at(p.client.next_timeout());
            ASSERT_NE(kDtlsNoTimeout, p.now);
            ASSERT_TRUE(p.client.handle_timeout(p.now).ok());
            p.run(filter);
        }
        EXPECT_EQ(DtlsState::kConnected, p.client.state()) << lose << " " << p.client.milestones() << " / " << p.server.milestones();
        EXPECT_EQ(DtlsState::kConnected, p.server.state()) << lose << " " << p.server.milestones();
        EXPECT_EQ(p.client.srtp_keys().server_key, p.server.srtp_keys().server_key);
    }
}

TEST(ProtocolDtlsTest, TimerBeforeDueDoesNothing) {
    Pair p;
    p.start();
    drain(&p.client);
    utime_t due = p.client.next_timeout();
    EXPECT_EQ(p.now + kDtlsInitialRto, due);
    p.at(due - 20 * kUsPerMs);  // OpenSSL counts the last 15 ms as due
    ASSERT_TRUE(p.client.handle_timeout(due - 1).ok());
    EXPECT_EQ(0u, p.client.pending_datagrams());
    ASSERT_TRUE(p.client.handle_timeout(p.now).ok());
    EXPECT_EQ(0u, p.client.pending_datagrams());
    EXPECT_EQ(due, p.client.next_timeout());
    p.at(due);
    ASSERT_TRUE(p.client.handle_timeout(due).ok());
    EXPECT_GT(p.client.pending_datagrams(), 0u);
    EXPECT_EQ(1, p.client.retransmits());
    EXPECT_EQ(due + 2 * kDtlsInitialRto, p.client.next_timeout());
}

namespace {

struct DtlsRecordHeader {
    uint8_t type = 0;
    uint16_t epoch = 0;
    uint64_t seq = 0;
    uint8_t handshake_type = 0;  // epoch 0 handshake records only
};

// The record headers of one datagram (RFC 6347 4.1).
std::vector<DtlsRecordHeader> records_of(const std::string& d) {
    std::vector<DtlsRecordHeader> out;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(d.data());
    size_t i = 0;
    while (i + 13 <= d.size()) {
        DtlsRecordHeader h;
        h.type = p[i];
        h.epoch = static_cast<uint16_t>(p[i + 3] << 8 | p[i + 4]);
        for (int k = 5; k < 11; ++k) h.seq = h.seq << 8 | p[i + k];
        size_t len = static_cast<size_t>(p[i + 11] << 8 | p[i + 12]);
        if (h.type == 22 && h.epoch == 0 && len > 0) h.handshake_type = p[i + 13];
        out.push_back(h);
        i += 13 + len;
    }
    EXPECT_EQ(i, d.size()) << "a datagram holds whole records";
    return out;
}

std::vector<DtlsRecordHeader> records_of(const std::vector<std::string>& ds) {
    std::vector<DtlsRecordHeader> out;
    for (const auto& d : ds) {
        auto r = records_of(d);
        out.insert(out.end(), r.begin(), r.end());
    }
    return out;
}

}  // namespace

// RFC 6347 4.1 and 4.2.4: a resent flight is made of new records. A peer with
// a replay window (pion, BoringSSL) drops a record whose sequence number it saw.
TEST(ProtocolDtlsTest, ResentFlightsHaveNewRecordSequenceNumbers) {
    Pair p;
    p.start();

    // Flight 1 (ClientHello) is lost; its resend has the same message in a new record.
    auto first = records_of(drain(&p.client));
    ASSERT_EQ(1u, first.size());
    EXPECT_EQ(1, first[0].handshake_type);
    p.at(p.client.next_timeout());
    ASSERT_TRUE(p.client.handle_timeout(p.now).ok());
    auto again = drain(&p.client);
    auto resent = records_of(again);
    ASSERT_EQ(1u, resent.size());
    EXPECT_EQ(1, resent[0].handshake_type);
    EXPECT_EQ(0, resent[0].epoch);
    EXPECT_GT(resent[0].seq, first[0].seq);

    // The server's flight (hello ... done) is lost once: every record is new.
    deliver(&p.server, again, p.now);
    auto flight2_raw = drain(&p.server);
    auto flight2 = records_of(flight2_raw);
    ASSERT_GE(flight2.size(), 4u);
    p.at(p.server.next_timeout());
    ASSERT_TRUE(p.server.handle_timeout(p.now).ok());
    auto flight2_again = drain(&p.server);
    // Packed as the first send was: each datagram is one more chance of loss.
    EXPECT_EQ(flight2_raw.size(), flight2_again.size());
    for (const auto& d : flight2_again) EXPECT_LE(d.size(), kDtlsMtu);
    auto resent2 = records_of(flight2_again);
    ASSERT_EQ(flight2.size(), resent2.size());
    for (size_t i = 0; i < resent2.size(); ++i) {
        EXPECT_EQ(flight2[i].handshake_type, resent2[i].handshake_type) << i;
        EXPECT_GT(resent2[i].seq, flight2.back().seq) << i;
    }

    // The client's last flight mixes epochs: Certificate ... in epoch 0, then
    // ChangeCipherSpec and the encrypted Finished in epoch 1. Both go on with
    // new numbers in their own epoch.
    deliver(&p.client, flight2_again, p.now);
    auto flight3 = records_of(drain(&p.client));
    p.at(p.client.next_timeout());
    ASSERT_TRUE(p.client.handle_timeout(p.now).ok());
    auto flight3_again_raw = drain(&p.client);
    EXPECT_EQ(1u, flight3_again_raw.size());
    auto flight3_again = records_of(flight3_again_raw);
    ASSERT_EQ(flight3.size(), flight3_again.size());
    uint64_t last_epoch0 = 0, last_epoch1 = 0;
    bool has_epoch1 = false;
    for (const auto& r : flight3) {
        if (r.epoch == 0) last_epoch0 = std::max(last_epoch0, r.seq);
        if (r.epoch == 1) {
            last_epoch1 = std::max(last_epoch1, r.seq);
            has_epoch1 = true;
        }
    }
    ASSERT_TRUE(has_epoch1);
    for (size_t i = 0; i < flight3_again.size(); ++i) {
        EXPECT_EQ(flight3[i].type, flight3_again[i].type) << i;
        EXPECT_EQ(flight3[i].epoch, flight3_again[i].epoch) << i;
        EXPECT_GT(flight3_again[i].seq, flight3_again[i].epoch ? last_epoch1 : last_epoch0) << i;
    }

    // And the handshake completes on the resent flights.
    deliver(&p.server, flight3_again_raw, p.now);
    deliver(&p.client, drain(&p.server), p.now);
    EXPECT_EQ(DtlsState::kConnected, p.client.state()) << p.client.milestones();
    EXPECT_EQ(DtlsState::kConnected, p.server.state()) << p.server.milestones();
    EXPECT_NE(std::string::npos, p.client.milestones().find("retransmit1.1")) << p.client.milestones();
}

// The server's last flight (ChangeCipherSpec, Finished) is lost: the client
// resends its flight and the connected server answers with new records.
TEST(ProtocolDtlsTest, ConnectedServerResendsItsLastFlightWithNewRecords) {
    Pair p;
    p.start();
    deliver(&p.server, drain(&p.client), p.now);
    deliver(&p.client, drain(&p.server), p.now);
    deliver(&p.server, drain(&p.client), p.now);
    ASSERT_EQ(DtlsState::kConnected, p.server.state()) << p.server.milestones();
    auto lost = records_of(drain(&p.server));
    ASSERT_FALSE(lost.empty());
    ASSERT_EQ(DtlsState::kConnecting, p.client.state());

    p.at(p.client.next_timeout());
    ASSERT_TRUE(p.client.handle_timeout(p.now).ok());
    deliver(&p.server, drain(&p.client), p.now);
    auto answer = drain(&p.server);
    EXPECT_EQ(1u, answer.size());
    auto again = records_of(answer);
    ASSERT_EQ(lost.size(), again.size()) << p.server.milestones();
    for (size_t i = 0; i < again.size(); ++i) {
        EXPECT_EQ(lost[i].epoch, again[i].epoch);
        EXPECT_GT(again[i].seq, lost[i].seq);
    }
    EXPECT_EQ(0, deliver(&p.client, answer, p.now));
    EXPECT_EQ(DtlsState::kConnected, p.client.state()) << p.client.milestones();
    EXPECT_NE(std::string::npos, p.server.milestones().find("resend-final"));
}

// The peer repeats an alert: a warning twice mid-handshake is ignored, a
// close_notify twice closes once, a fatal one fails the handshake once.
TEST(ProtocolDtlsTest, RepeatedAlerts) {
    // level 1 (warning), description 90 (user_canceled), epoch 0.
    const std::string warning("\x15\xfe\xfd\x00\x00\x00\x00\x00\x00\x00\x63\x00\x02\x01\x5a", 15);
    Pair p;
    p.start();
    deliver(&p.server, drain(&p.client), p.now);
    EXPECT_EQ(0, deliver(&p.server, {warning, warning}, p.now));
    EXPECT_EQ(DtlsState::kConnecting, p.server.state()) << p.server.milestones();
    p.run();
    EXPECT_EQ(DtlsState::kConnected, p.server.state()) << p.server.milestones();
    EXPECT_EQ(DtlsState::kConnected, p.client.state()) << p.client.milestones();

    ASSERT_TRUE(p.client.close().ok());
    auto bye = drain(&p.client);
    ASSERT_EQ(1u, bye.size());
    EXPECT_TRUE(p.server.handle_datagram(reinterpret_cast<const uint8_t*>(bye[0].data()), bye[0].size(), p.now).ok());
    EXPECT_EQ(DtlsState::kClosed, p.server.state());
    Error twice = p.server.handle_datagram(reinterpret_cast<const uint8_t*>(bye[0].data()), bye[0].size(), p.now);
    EXPECT_EQ(kErrorDtlsState, twice.code());
    EXPECT_EQ(DtlsState::kClosed, p.server.state());

    // level 2 (fatal), description 40 (handshake_failure).
    const std::string fatal("\x15\xfe\xfd\x00\x00\x00\x00\x00\x00\x00\x64\x00\x02\x02\x28", 15);
    Pair f;
    f.start();
    deliver(&f.server, drain(&f.client), f.now);
    Error e1 = f.server.handle_datagram(reinterpret_cast<const uint8_t*>(fatal.data()), fatal.size(), f.now);
    EXPECT_EQ(kErrorDtlsHandshake, e1.code()) << e1.describe();
    EXPECT_NE(std::string::npos, e1.describe().find("handshake failure")) << e1.describe();
    Error e2 = f.server.handle_datagram(reinterpret_cast<const uint8_t*>(fatal.data()), fatal.size(), f.now);
    EXPECT_EQ(kErrorDtlsState, e2.code());
    EXPECT_EQ(DtlsState::kFailed, f.server.state());
    EXPECT_EQ(kDtlsNoTimeout, f.server.next_timeout());
}

// A corrupt ClientHello or Certificate fails the handshake with OpenSSL's
// reason in the error, once; nothing is resent after it.
TEST(ProtocolDtlsTest, CorruptClientHelloAndCertificateAreRefused) {
    Pair p;
    p.start();
    auto hello = drain(&p.client);
    ASSERT_EQ(1u, hello.size());
    std::string bad = hello[0];
    // The cipher suites' length (after version, random, session id, cookie) made odd and huge.
    size_t body = 13 + 12;
    size_t sid = body + 2 + 32;
    size_t cookie = sid + 1 + static_cast<uint8_t>(bad[sid]);
    size_t suites = cookie + 1 + static_cast<uint8_t>(bad[cookie]);
    bad[suites] = '\x7f';
    bad[suites + 1] = '\x01';
    Error e = p.server.handle_datagram(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), p.now);
    EXPECT_EQ(kErrorDtlsHandshake, e.code()) << e.describe();
    EXPECT_NE(std::string::npos, e.describe().find("handshake as server")) << e.describe();
    EXPECT_EQ(DtlsState::kFailed, p.server.state());
    EXPECT_EQ(kDtlsNoTimeout, p.server.next_timeout());

    // A Certificate whose DER is garbage: the client's flight 3 carries it.
    Pair q;
    q.start();
    deliver(&q.server, drain(&q.client), q.now);
    deliver(&q.client, drain(&q.server), q.now);
    auto flight3 = drain(&q.client);
    bool corrupted = false;
    for (auto& d : flight3) {
        size_t i = 0;
        while (i + 13 <= d.size()) {
            size_t len = static_cast<size_t>(static_cast<uint8_t>(d[i + 11]) << 8 | static_cast<uint8_t>(d[i + 12]));
            // Handshake header is 12 bytes; a Certificate (11) body is a 3-byte
            // list length, then each a 3-byte length and DER (0x30 ...).
            if (d[i] == 22 && d[i + 4] == 0 && d[i + 13] == 11 && len > 40) {
                for (size_t k = i + 13 + 12 + 6; k < i + 13 + 12 + 30 && k < d.size(); ++k) d[k] = 'Z';
                corrupted = true;
            }
            i += 13 + len;
        }
    }
    ASSERT_TRUE(corrupted);
    int errors = deliver(&q.server, flight3, q.now);
    EXPECT_GE(errors, 1);
    EXPECT_EQ(DtlsState::kFailed, q.server.state()) << q.server.milestones();
}

TEST(ProtocolDtlsTest, ReorderedAndDuplicatedDatagrams) {
    Pair p;
    p.start();
    p.run([](bool, std::vector<std::string> ds) {
        std::vector<std::string> out;
        for (auto it = ds.rbegin(); it != ds.rend(); ++it) {
            out.push_back(*it);
            out.push_back(*it);
        }
        return out;
    });
    EXPECT_EQ(DtlsState::kConnected, p.client.state()) << p.client.milestones();
    EXPECT_EQ(DtlsState::kConnected, p.server.state()) << p.server.milestones();
    EXPECT_EQ(p.client.srtp_keys().client_key, p.server.srtp_keys().client_key);
}

TEST(ProtocolDtlsTest, GarbageDoesNotCrash) {
    Pair p;
    p.start();
    std::vector<std::string> garbage = {
        std::string(1, '\x16'),
        std::string("\x16\xfe\xfd\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff", 13),
        std::string("\x17\xfe\xfd\x00\x01\x00\x00\x00\x00\x00\x05\x00\x03" "abc", 16),
        std::string(1500, '\x16'),
        std::string(300, '\x42'),
    };
    for (const auto& g : garbage) {
        Error e1 = p.server.handle_datagram(reinterpret_cast<const uint8_t*>(g.data()), g.size(), p.now);
        e1.ignore();
        Error e2 = p.client.handle_datagram(reinterpret_cast<const uint8_t*>(g.data()), g.size(), p.now);
        e2.ignore();
    }
    if (p.server.state() == DtlsState::kConnecting && p.client.state() == DtlsState::kConnecting) {
        p.run();
        EXPECT_EQ(DtlsState::kConnected, p.client.state()) << p.client.milestones();
    }
    // And after connecting.
    Pair q;
    q.start();
    q.run();
    ASSERT_EQ(DtlsState::kConnected, q.server.state());
    for (const auto& g : garbage) {
        Error e = q.server.handle_datagram(reinterpret_cast<const uint8_t*>(g.data()), g.size(), q.now);
        e.ignore();
    }
}

TEST(ProtocolDtlsTest, StalledHandshakeTimesOut) {
    Pair p;
    p.start();
    drain(&p.client);  // the server never hears from the client
    Error last;
    int timeouts = 0;
    while (p.client.state() == DtlsState::kConnecting && timeouts < 100) {
        p.at(p.client.next_timeout());
        last = p.client.handle_timeout(p.now);
        drain(&p.client);
        ++timeouts;
    }
    EXPECT_EQ(DtlsState::kFailed, p.client.state());
    EXPECT_EQ(kErrorDtlsTimeout, last.code());
    EXPECT_EQ(kDtlsMaxRetransmits + 1, timeouts);
    EXPECT_EQ(kDtlsNoTimeout, p.client.next_timeout());

    // Halfway: the server answered, then the client goes silent.
    Pair h;
    h.start();
    deliver(&h.server, drain(&h.client), h.now);
    drain(&h.server);
    int n = 0;
    while (h.server.state() == DtlsState::kConnecting && n < 100) {
        h.at(h.server.next_timeout());
        Error e = h.server.handle_timeout(h.now);
        e.ignore();
        drain(&h.server);
        ++n;
    }
    EXPECT_EQ(DtlsState::kFailed, h.server.state());
}

TEST(ProtocolDtlsTest, CloseNotifyClosesThePeer) {
    Pair p;
    p.start();
    p.run();
    ASSERT_EQ(DtlsState::kConnected, p.client.state());
    ASSERT_TRUE(p.client.close().ok());
    EXPECT_EQ(DtlsState::kClosed, p.client.state());
    auto out = drain(&p.client);
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(0, deliver(&p.server, out, p.now));
    EXPECT_EQ(DtlsState::kClosed, p.server.state()) << p.server.milestones();
    // Closing twice sends nothing more.
    ASSERT_TRUE(p.client.close().ok());
    EXPECT_EQ(0u, p.client.pending_datagrams());

    // The other way round.
    Pair q;
    q.start();
    q.run();
    ASSERT_TRUE(q.server.close().ok());
    deliver(&q.client, drain(&q.server), q.now);
    EXPECT_EQ(DtlsState::kClosed, q.client.state());
}

TEST(ProtocolDtlsTest, StateErrors) {
    auto c = make_cert();
    DtlsEndpoint ep(c, DtlsRole::kServer, c->fingerprint());
    uint8_t b[1] = {22};
    EXPECT_EQ(kErrorDtlsState, ep.handle_datagram(b, 1, 0).code());
    ASSERT_TRUE(ep.start(0).ok());
    EXPECT_EQ(kErrorDtlsState, ep.start(0).code());
    EXPECT_EQ(kDtlsNoTimeout, ep.next_timeout());  // a server waits without a timer
}
