// TlsClient against an OpenSSL server in memory: certificates made by the
// test (a CA and a leaf it signs, and a self-signed one), bytes passed by
// hand between the two, so verification, SNI, name checks and records are
// tested without sockets.
#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "protocol/tls/tls_client.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using srs::utest::code;
using srs::utest::ok;

namespace {

struct Cert {
    EVP_PKEY* key = nullptr;
    X509* x509 = nullptr;
    ~Cert() {
        if (x509) X509_free(x509);
        if (key) EVP_PKEY_free(key);
    }
};

void add_ext(X509* cert, X509* issuer, int nid, const char* value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    ASSERT_NE(ext, nullptr) << value;
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
}

// A certificate for `cn` with subjectAltName `san` ("" for none), signed by
// `issuer` (nullptr: self-signed); `ca` makes it a CA.
void make_cert(const char* cn, const char* san, const Cert* issuer, bool ca, Cert* out) {
    out->key = EVP_EC_gen("P-256");
    ASSERT_NE(out->key, nullptr);
    out->x509 = X509_new();
    X509_set_version(out->x509, 2);
    static long serial = 1;
    ASN1_INTEGER_set(X509_get_serialNumber(out->x509), serial++);
    X509_gmtime_adj(X509_getm_notBefore(out->x509), -3600);
    X509_gmtime_adj(X509_getm_notAfter(out->x509), 3600 * 24);
    X509_set_pubkey(out->x509, out->key);
    X509_NAME* name = X509_get_subject_name(out->x509);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
    X509* issuer_cert = issuer ? issuer->x509 : out->x509;
    X509_set_issuer_name(out->x509, X509_get_subject_name(issuer_cert));
    add_ext(out->x509, issuer_cert, NID_basic_constraints, ca ? "critical,CA:TRUE" : "CA:FALSE");
    if (ca) add_ext(out->x509, issuer_cert, NID_key_usage, "critical,keyCertSign,cRLSign");
    if (*san) add_ext(out->x509, issuer_cert, NID_subject_alt_name, san);
    ASSERT_GT(X509_sign(out->x509, issuer ? issuer->key : out->key, EVP_sha256()), 0);
}

std::string write_pem(X509* cert) {
    char path[] = "/tmp/srs-tls-ca-XXXXXX";
    int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    FILE* f = fdopen(fd, "w");
    PEM_write_X509(f, cert);
    fclose(f);
    return path;
}

// An OpenSSL server on memory BIOs: what the client sends is written in,
// what the server answers is read out.
class MemoryServer {
  public:
    MemoryServer(const Cert& leaf, const Cert* chain_ca) {
        ctx_ = SSL_CTX_new(TLS_server_method());
        SSL_CTX_use_certificate(ctx_, leaf.x509);
        SSL_CTX_use_PrivateKey(ctx_, leaf.key);
        if (chain_ca) SSL_CTX_add1_chain_cert(ctx_, chain_ca->x509);
        SSL_CTX_set_tlsext_servername_callback(ctx_, on_sni);
        SSL_CTX_set_tlsext_servername_arg(ctx_, this);
        ssl_ = SSL_new(ctx_);
        in_ = BIO_new(BIO_s_mem());
        out_ = BIO_new(BIO_s_mem());
        BIO_set_mem_eof_return(in_, -1);
        SSL_set_bio(ssl_, in_, out_);
        SSL_set_accept_state(ssl_);
    }
    ~MemoryServer() {
        SSL_free(ssl_);
        SSL_CTX_free(ctx_);
    }
    // Takes the client's bytes, runs the handshake or reads; returns its answer bytes.
    std::string exchange(const std::string& from_client) {
        if (!from_client.empty()) BIO_write(in_, from_client.data(), static_cast<int>(from_client.size()));
        if (!SSL_is_init_finished(ssl_)) {
            SSL_do_handshake(ssl_);
        }
        if (SSL_is_init_finished(ssl_)) {
            char buf[4096];
            int n;
            while ((n = SSL_read(ssl_, buf, sizeof(buf))) > 0) received.append(buf, n);
        }
        ERR_clear_error();
        return drain();
    }
    std::string send(const std::string& text) {
        SSL_write(ssl_, text.data(), static_cast<int>(text.size()));
        return drain();
    }
    std::string close_notify() {
        SSL_shutdown(ssl_);
        return drain();
    }
    std::string sni;
    std::string received;

  private:
    static int on_sni(SSL* ssl, int*, void* arg) {
        const char* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
        static_cast<MemoryServer*>(arg)->sni = name ? name : "";
        return SSL_TLSEXT_ERR_OK;
    }
    std::string drain() {
        std::string out;
        char buf[4096];
        int n;
        while ((n = BIO_read(out_, buf, sizeof(buf))) > 0) out.append(buf, n);
        return out;
    }
    SSL_CTX* ctx_;
    SSL* ssl_;
    BIO* in_;
    BIO* out_;
};

// Runs the handshake to its end (or failure); returns the client's last error.
Error handshake(TlsClient* client, MemoryServer* server) {
    if (Error err = client->start(); !err.ok()) return err;
    for (int i = 0; i < 10 && !client->connected(); i++) {
        std::string out;
        client->take_output(&out);
        std::string back = server->exchange(out);
        if (back.empty()) break;
        if (Error err = client->feed(reinterpret_cast<const uint8_t*>(back.data()), back.size()); !err.ok()) return err;
    }
    std::string out;
    if (client->take_output(&out)) {
        // The client's Finished (TLS 1.3); the server answers with session tickets.
        std::string tickets = server->exchange(out);
        if (Error err = client->feed(reinterpret_cast<const uint8_t*>(tickets.data()), tickets.size()); !err.ok()) {
            return err;
        }
    }
    if (!client->connected()) return SRS_ERR(kErrorTlsHandshake, "handshake did not end");
    return Error();
}

class TlsClientTest : public ::testing::Test {
  protected:
    void SetUp() override {
        make_cert("Test CA", "", nullptr, true, &ca_);
        make_cert("hooks.test", "DNS:hooks.test,IP:127.0.0.1", &ca_, false, &leaf_);
        make_cert("hooks.test", "DNS:hooks.test", nullptr, false, &self_signed_);
        ca_file_ = write_pem(ca_.x509);
    }
    void TearDown() override { unlink(ca_file_.c_str()); }
    std::shared_ptr<TlsClientContext> context(bool verify, const std::string& ca_file) {
        std::shared_ptr<TlsClientContext> ctx;
        Error err = TlsClientContext::create(verify, ca_file, &ctx);
        EXPECT_TRUE(err.ok()) << err.summary();
        err.ignore();
        return ctx;
    }
    Cert ca_, leaf_, self_signed_;
    std::string ca_file_;
};

}  // namespace

TEST_F(TlsClientTest, VerifiedAgainstTheCaFileWithSniAndRecordsBothWays) {
    MemoryServer server(leaf_, nullptr);
    TlsClient client(context(true, ca_file_), "hooks.test");
    ASSERT_TRUE(ok(handshake(&client, &server)));
    EXPECT_EQ(server.sni, "hooks.test");
    EXPECT_FALSE(client.protocol().empty());

    const std::string req = "POST /hook HTTP/1.1\r\nHost: hooks.test\r\n\r\n";
    ASSERT_TRUE(ok(client.write(req.data(), req.size())));
    std::string out;
    ASSERT_TRUE(client.take_output(&out));
    EXPECT_EQ(out.find("POST"), std::string::npos);  // encrypted
    std::string back = server.exchange(out);
    EXPECT_EQ(server.received, req);
    back += server.send("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n0");
    back += server.close_notify();
    // One byte at a time: records are reassembled.
    for (char c : back) {
        Error err = client.feed(reinterpret_cast<const uint8_t*>(&c), 1);
        ASSERT_TRUE(err.ok()) << err.summary();
    }
    std::string text;
    ASSERT_TRUE(client.take_plaintext(&text));
    EXPECT_EQ(text, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n0");
    EXPECT_TRUE(client.peer_closed());
}

TEST_F(TlsClientTest, IpLiteralSendsNoSniAndChecksTheIpSan) {
    MemoryServer server(leaf_, nullptr);
    TlsClient client(context(true, ca_file_), "127.0.0.1");
    ASSERT_TRUE(ok(handshake(&client, &server)));
    EXPECT_EQ(server.sni, "");
}

TEST_F(TlsClientTest, SelfSignedIsRefusedByDefaultAndAcceptedWithoutVerify) {
    {
        MemoryServer server(self_signed_, nullptr);
        TlsClient client(context(true, ""), "hooks.test");  // the system store
        Error err = handshake(&client, &server);
        EXPECT_EQ(err.code(), kErrorTlsVerify);
        EXPECT_NE(err.summary().find("self-signed"), std::string::npos) << err.summary();
        err.ignore();
        EXPECT_TRUE(client.failed());
        Error after = client.feed(reinterpret_cast<const uint8_t*>("x"), 1);
        EXPECT_FALSE(after.ok());
        after.ignore();
    }
    {
        MemoryServer server(self_signed_, nullptr);
        TlsClient client(context(false, ""), "hooks.test");
        ASSERT_TRUE(ok(handshake(&client, &server)));
    }
}

TEST_F(TlsClientTest, WrongNameIsRefused) {
    MemoryServer server(leaf_, nullptr);
    TlsClient client(context(true, ca_file_), "other.test");
    Error err = handshake(&client, &server);
    EXPECT_EQ(err.code(), kErrorTlsVerify);
    EXPECT_NE(err.summary().find("hostname mismatch"), std::string::npos) << err.summary();
    err.ignore();
}

TEST_F(TlsClientTest, UnknownCaIsRefused) {
    MemoryServer server(leaf_, nullptr);
    TlsClient client(context(true, ""), "hooks.test");  // the system store does not know our test CA
    Error err = handshake(&client, &server);
    EXPECT_EQ(err.code(), kErrorTlsVerify);
    EXPECT_NE(err.summary().find("local issuer"), std::string::npos) << err.summary();
    err.ignore();
}

TEST_F(TlsClientTest, GarbageFromThePeerFailsTheHandshake) {
    TlsClient client(context(false, ""), "hooks.test");
    ASSERT_TRUE(ok(client.start()));
    const std::string junk = "HTTP/1.1 400 Bad Request\r\n\r\n";
    Error err = client.feed(reinterpret_cast<const uint8_t*>(junk.data()), junk.size());
    EXPECT_EQ(err.code(), kErrorTlsHandshake);
    err.ignore();
    EXPECT_FALSE(client.connected());
}

TEST_F(TlsClientTest, MissingCaFileIsAnInitError) {
    std::shared_ptr<TlsClientContext> ctx;
    Error err = TlsClientContext::create(true, "/nonexistent/ca.pem", &ctx);
    EXPECT_EQ(err.code(), kErrorTlsInit);
    EXPECT_NE(err.summary().find("/nonexistent/ca.pem"), std::string::npos);
    err.ignore();
    TlsClient unstarted(nullptr, "x");
    Error w = unstarted.write("a", 1);
    EXPECT_FALSE(w.ok());
    w.ignore();
}
