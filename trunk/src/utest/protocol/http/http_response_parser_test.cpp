// HttpResponseParser with real response bytes (nginx, Go net/http and SRS
// shapes): whole, one byte at a time behind a guard page, chunked, garbage.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "protocol/http/http_response_parser.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using srs::utest::code;
using srs::utest::GuardPage;
using srs::utest::ok;

namespace {

struct Parsed {
    int err = 0;          // error code, 0 for success
    size_t consumed = 0;  // total
    bool head_done = false;
    bool done = false;
    HttpParsedResponse head;
    std::string body;
};

// Feeds `bytes` in pieces of `step` bytes (what a socket hands out), each
// piece placed right before a PROT_NONE page so a read past it crashes.
// eof: tell the parser the peer closed.
Parsed parse_in_steps(const std::string& bytes, size_t step, bool eof = false, bool head_request = false) {
    HttpResponseParser p;
    p.set_head_request(head_request);
    Parsed r;
    GuardPage guard(step + 1);
    for (size_t i = 0; i < bytes.size() && !p.done(); i += step) {
        size_t n = std::min(step, bytes.size() - i);
        const uint8_t* d = guard.place(reinterpret_cast<const uint8_t*>(bytes.data() + i), n);
        size_t c = 0;
        r.err = code(p.feed(d, n, &c, &r.body));
        r.consumed += c;
        if (r.err) break;
    }
    if (!r.err && eof) r.err = code(p.finish_at_eof());
    r.head_done = p.head_done();
    r.done = p.done();
    r.head = p.head();
    return r;
}

// The whole buffer at once, or one byte at a time.
Parsed parse(const std::string& bytes, bool bytewise, bool eof = false, bool head_request = false) {
    return parse_in_steps(bytes, bytewise ? 1 : std::max<size_t>(bytes.size(), 1), eof, head_request);
}

// Both ways must agree; returns the whole-buffer result.
Parsed parse_both(const std::string& bytes, bool eof = false, bool head_request = false) {
    Parsed whole = parse(bytes, false, eof, head_request);
    Parsed bytewise = parse(bytes, true, eof, head_request);
    EXPECT_EQ(whole.err, bytewise.err);
    EXPECT_EQ(whole.consumed, bytewise.consumed);
    EXPECT_EQ(whole.body, bytewise.body);
    EXPECT_EQ(whole.done, bytewise.done);
    EXPECT_EQ(whole.head.status, bytewise.head.status);
    EXPECT_EQ(whole.head.headers, bytewise.head.headers);
    return whole;
}

// What SRS's API answers (Content-Length framing).
const std::string kSrsApi =
    "HTTP/1.1 200 OK\r\n"
    "Connection: Keep-Alive\r\n"
    "Content-Length: 27\r\n"
    "Content-Type: application/json\r\n"
    "Server: SRS/7.0.0\r\n"
    "\r\n"
    "{\"code\":0,\"server\":\"vid-x\"}";

// Go net/http's chunked answer (body written in two Flush()es), with a trailer.
const std::string kGoChunked =
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "Date: Thu, 26 Nov 2026 23:00:00 GMT\r\n"
    "Transfer-Encoding: chunked\r\n"
    "\r\n"
    "5\r\nhello\r\n"
    "7;ext=1\r\n, world\r\n"
    "0\r\n"
    "X-Trailer: t\r\n"
    "\r\n";

// Responses no server may send; each fails at some byte.
const char* const kGarbage[] = {
    "SSH-2.0-OpenSSH_9.2\r\n",
    "HTTP/2 200\r\n\r\n",
    "HTTP/1.1 2x0 OK\r\n\r\n",
    "HTTP/1.1 20 OK\r\n\r\n",
    "HTTP/1.1 200OK\r\n\r\n",
    "HTTP/1.1 099 x\r\n\r\n",
    "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
    "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
    "HTTP/1.1 200 OK\r\n: empty name\r\n\r\n",
    "HTTP/1.1 200 OK\r\nX: a\x01" "b\r\n\r\n",
    "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n",
};

}  // namespace

TEST(HttpResponseParser, ContentLengthWholeAndBytewise) {
    Parsed r = parse_both(kSrsApi + "HTTP/1.1 200 OK\r\n");  // a pipelined rest is left alone
    EXPECT_EQ(r.err, 0);
    EXPECT_TRUE(r.done);
    EXPECT_EQ(r.consumed, kSrsApi.size());
    EXPECT_EQ(r.head.status, 200);
    EXPECT_EQ(r.head.reason, "OK");
    EXPECT_TRUE(r.head.has_length);
    EXPECT_EQ(r.head.content_length, 27u);
    EXPECT_TRUE(r.head.keep_alive);
    ASSERT_NE(r.head.header("content-type"), nullptr);
    EXPECT_EQ(*r.head.header("CONTENT-TYPE"), "application/json");
    EXPECT_EQ(r.body, "{\"code\":0,\"server\":\"vid-x\"}");
}

TEST(HttpResponseParser, ChunkedWithExtensionAndTrailer) {
    Parsed r = parse_both(kGoChunked);
    EXPECT_EQ(r.err, 0);
    EXPECT_TRUE(r.done);
    EXPECT_TRUE(r.head.chunked);
    EXPECT_EQ(r.body, "hello, world");
    EXPECT_EQ(r.consumed, kGoChunked.size());
    EXPECT_EQ(r.head.header("X-Trailer"), nullptr);  // trailers are dropped
}

TEST(HttpResponseParser, ChunkedTruncatedIsNotDone) {
    std::string cut = kGoChunked.substr(0, kGoChunked.find("0\r\n"));
    Parsed r = parse_both(cut);
    EXPECT_EQ(r.err, 0);
    EXPECT_TRUE(r.head_done);
    EXPECT_FALSE(r.done);
    EXPECT_EQ(r.body, "hello, world");
    EXPECT_EQ(parse(cut, false, true).err, kErrorHttpClientTruncated);
    EXPECT_EQ(parse(cut, true, true).err, kErrorHttpClientTruncated);
}

TEST(HttpResponseParser, CloseDelimitedBodyEndsAtEof) {
    // nginx-style HTTP/1.0 answer without a length: the body runs to the close.
    std::string bytes = "HTTP/1.0 200 OK\nServer: nginx\n\nFLV\x01\x05";
    Parsed r = parse_both(bytes);
    EXPECT_EQ(r.err, 0);
    EXPECT_FALSE(r.done);
    EXPECT_FALSE(r.head.keep_alive);
    EXPECT_EQ(r.body, "FLV\x01\x05");
    Parsed closed = parse(bytes, true, true);
    EXPECT_EQ(closed.err, 0);
    EXPECT_TRUE(closed.done);
}

TEST(HttpResponseParser, ContinueIsSkippedAndNoBodyStatuses) {
    Parsed r = parse_both("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(r.err, 0);
    EXPECT_TRUE(r.done);
    EXPECT_EQ(r.head.status, 204);
    EXPECT_FALSE(r.head.keep_alive);
    Parsed head = parse_both("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", false, true);
    EXPECT_TRUE(head.done);
    EXPECT_EQ(head.body, "");
    Parsed empty = parse_both("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    EXPECT_TRUE(empty.done);
}

TEST(HttpResponseParser, ChunkedWinsOverContentLength) {
    Parsed r = parse_both("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n");
    EXPECT_EQ(r.err, 0);
    EXPECT_TRUE(r.done);
    EXPECT_EQ(r.body, "ab");
}

TEST(HttpResponseParser, GarbageFails) {
    for (const char* b : kGarbage) {
        Parsed r = parse_both(b);
        EXPECT_NE(r.err, 0) << b;
        EXPECT_GE(r.err, kErrorHttpClientBadUrl) << b;
        EXPECT_LE(r.err, kErrorHttpClientTimeout) << b;
    }
}

TEST(HttpResponseParser, ErrorIsStickyUntilReset) {
    HttpResponseParser p;
    std::string bad = "HTTX/1.1 200 OK\r\n";
    size_t c = 0;
    EXPECT_EQ(code(p.feed(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), &c, nullptr)),
              kErrorHttpClientBadStatusLine);
    EXPECT_EQ(code(p.feed(reinterpret_cast<const uint8_t*>(kSrsApi.data()), kSrsApi.size(), &c, nullptr)),
              kErrorHttpClientBadStatusLine);
    EXPECT_EQ(c, 0u);
    p.reset();
    std::string body;
    EXPECT_TRUE(ok(p.feed(reinterpret_cast<const uint8_t*>(kSrsApi.data()), kSrsApi.size(), &c, &body)));
    EXPECT_TRUE(p.done());
}

TEST(HttpResponseParser, LimitsBoundMemory) {
    HttpResponseLimits limits;
    limits.max_line = 64;
    limits.max_headers = 3;
    HttpResponseParser p(limits);
    std::string longline = "HTTP/1.1 200 " + std::string(100, 'a') + "\r\n";
    size_t c = 0;
    EXPECT_EQ(code(p.feed(reinterpret_cast<const uint8_t*>(longline.data()), longline.size(), &c, nullptr)),
              kErrorHttpClientBadHeader);
    HttpResponseParser q(limits);
    std::string many = "HTTP/1.1 200 OK\r\na: 1\r\nb: 2\r\nc: 3\r\nd: 4\r\n\r\n";
    EXPECT_EQ(code(q.feed(reinterpret_cast<const uint8_t*>(many.data()), many.size(), &c, nullptr)),
              kErrorHttpClientBadHeader);
}

TEST(HttpResponseParser, FlvStreamInPiecesOfAnySize) {
    // What an origin answers an edge's HTTP-FLV pull: no length, the body
    // runs until the close. Socket reads cut it anywhere.
    const std::string bytes =
        "HTTP/1.1 200 OK\r\nContent-Type: video/x-flv\r\nConnection: close\r\n\r\nFLV\x01\x05" "body";
    for (size_t step : {size_t(1), size_t(3), size_t(7), bytes.size()}) {
        Parsed r = parse_in_steps(bytes, step);
        EXPECT_EQ(r.err, 0) << step;
        EXPECT_TRUE(r.head_done) << step;
        EXPECT_FALSE(r.done) << step;
        EXPECT_EQ(r.head.status, 200) << step;
        ASSERT_NE(r.head.header("content-type"), nullptr) << step;
        EXPECT_EQ(*r.head.header("content-type"), "video/x-flv") << step;
        EXPECT_FALSE(r.head.keep_alive) << step;
        EXPECT_EQ(r.body, std::string("FLV\x01\x05" "body")) << step;
        EXPECT_TRUE(parse_in_steps(bytes, step, true).done) << step;
    }
}

TEST(HttpResponseParser, ChunkedInPiecesWithUppercaseHex) {
    const std::string bytes =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nA;ext=1\r\n0123456789\r\n0\r\n\r\n";
    for (size_t step : {size_t(1), size_t(3), size_t(7), bytes.size()}) {
        Parsed r = parse_in_steps(bytes, step);
        EXPECT_EQ(r.err, 0) << step;
        EXPECT_TRUE(r.head.chunked) << step;
        EXPECT_TRUE(r.done) << step;
        EXPECT_EQ(r.body, "hello0123456789") << step;
        EXPECT_EQ(r.consumed, bytes.size()) << step;
    }
}

TEST(HttpResponseParser, ContentLengthCutsANon200Body) {
    // A refused pull: HTTP/1.0, a status the caller rejects, bytes past the length.
    const std::string bytes = "HTTP/1.0 404 Not Found\r\nContent-Length: 3\r\n\r\nabcdef";
    Parsed r = parse_both(bytes);
    EXPECT_EQ(r.err, 0);
    EXPECT_TRUE(r.done);
    EXPECT_EQ(r.head.status, 404);
    EXPECT_EQ(r.head.reason, "Not Found");
    EXPECT_EQ(r.head.version_minor, 0);
    EXPECT_EQ(r.body, "abc");
    EXPECT_EQ(r.consumed, bytes.size() - 3);
}

TEST(HttpResponseParser, EveryErrorIsSticky) {
    for (const char* b : kGarbage) {
        HttpResponseParser p;
        std::string bytes = b;
        size_t c = 0;
        int first = code(p.feed(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &c, nullptr));
        ASSERT_NE(first, 0) << b;
        EXPECT_EQ(code(p.feed(reinterpret_cast<const uint8_t*>("x"), 1, &c, nullptr)), first) << b;
        EXPECT_EQ(c, 0u) << b;
        EXPECT_EQ(code(p.finish_at_eof()), first) << b;
    }
}

TEST(HttpResponseParser, ChunkDataWithoutItsLineEndFails) {
    // Bytes after a chunk's data that are not its line end: an error at the
    // line end, or a truncation when the peer closes first.
    const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    EXPECT_EQ(parse_both(head + "2\r\nabXY\r\n").err, kErrorHttpClientBadFraming);
    EXPECT_EQ(parse(head + "2\r\nabXY", true, true).err, kErrorHttpClientTruncated);
}

TEST(HttpResponseParser, DefaultLimitsRefuseAHugeHead) {
    // One field line longer than max_line (8 KiB).
    std::string one = "HTTP/1.1 200 OK\r\nX: " + std::string(16 * 1024, 'a') + "\r\n\r\n";
    EXPECT_EQ(parse_in_steps(one, 4096).err, kErrorHttpClientBadHeader);
    // Lines each within max_line, together over max_header_bytes (64 KiB).
    std::string many = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; i < 10; i++) many += "X" + std::to_string(i) + ": " + std::string(7000, 'a') + "\r\n";
    many += "\r\n";
    EXPECT_EQ(parse_in_steps(many, 4096).err, kErrorHttpClientBadHeader);
}
