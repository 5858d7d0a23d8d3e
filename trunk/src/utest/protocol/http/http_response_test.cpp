// Unit tests of protocol/http_response: status line and header serialisation
// (no header added, no response splitting), chunk framing (string and writev
// forms), byte ranges, MIME types, dates, URL decoding and JSONP callback names.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "protocol/http/http_response.hpp"

using namespace srs;

TEST(HttpResponseTest, StatusText) {
    EXPECT_STREQ("OK", http_status_text(200));
    EXPECT_STREQ("Partial Content", http_status_text(206));
    EXPECT_STREQ("Not Found", http_status_text(404));
    EXPECT_STREQ("Range Not Satisfiable", http_status_text(416));
    EXPECT_STREQ("Request Header Fields Too Large", http_status_text(431));
    EXPECT_STREQ("HTTP Version Not Supported", http_status_text(505));
    EXPECT_STREQ("", http_status_text(599));
}

TEST(HttpResponseTest, SerializeHead) {
    HttpResponseHead h;
    EXPECT_EQ("HTTP/1.1 200 OK\r\n\r\n", h.serialize());  // nothing added
    h.status = 206;
    h.add("Content-Type", "video/x-flv");
    h.add("Set-Cookie", "a=1");
    h.add("set-cookie", "b=2");
    h.set("Content-Length", "10");
    h.set("content-type", "video/mp4");
    EXPECT_EQ(
        "HTTP/1.0 206 Partial Content\r\nContent-Type: video/mp4\r\nSet-Cookie: a=1\r\n"
        "set-cookie: b=2\r\nContent-Length: 10\r\n\r\n",
        h.serialize(0));
    h.set("SET-COOKIE", "c=3");  // replaces the first, removes the rest
    ASSERT_EQ(3u, h.headers.size());
    EXPECT_EQ("c=3", *h.get("Set-Cookie"));
    EXPECT_EQ(nullptr, h.get("Server"));

    HttpResponseHead odd;
    odd.status = 599;
    EXPECT_EQ("HTTP/1.1 599 \r\n\r\n", odd.serialize(7));
}

TEST(HttpResponseTest, SerializeNeverSplitsTheResponse) {
    HttpResponseHead h;
    h.status = 302;
    h.set("Location", "/x\r\nSet-Cookie: evil=1\r\n\r\n<script>");
    h.add(std::string("X\nY\0Z", 5), "v");
    std::string out = h.serialize();
    EXPECT_EQ("HTTP/1.1 302 Found\r\nLocation: /x  Set-Cookie: evil=1    <script>\r\nX Y Z: v\r\n\r\n", out);
}

TEST(HttpResponseTest, ChunkFraming) {
    EXPECT_EQ("5\r\nhello\r\n", http_chunk("hello", 5));
    EXPECT_EQ("", http_chunk("", 0));
    EXPECT_EQ("0\r\n\r\n", http_last_chunk());
    std::string big(0x1000, 'z');
    std::string framed = http_chunk(big.data(), big.size());
    EXPECT_EQ("1000\r\n", framed.substr(0, 6));
    EXPECT_EQ(6u + 0x1000 + 2, framed.size());
    EXPECT_EQ("\r\n", framed.substr(framed.size() - 2));

    const std::pair<size_t, const char*> headers[] = {
        {0, "0\r\n"}, {1, "1\r\n"}, {10, "a\r\n"}, {255, "ff\r\n"}, {256, "100\r\n"},
        {65536, "10000\r\n"}, {(size_t(1) << 56) - 1, "ffffffffffffff\r\n"},
    };
    for (const auto& [n, want] : headers) {
        HttpChunkHeader h = http_chunk_header(n);
        EXPECT_EQ(std::string(want), std::string(h.bytes, h.size)) << n;
        EXPECT_LE(h.size, sizeof(h.bytes));
    }
    EXPECT_STREQ("\r\n", kHttpCrlf);
}

TEST(HttpResponseTest, Ranges) {
    struct Case {
        const char* value;
        uint64_t size;
        bool ok;
        uint64_t start, end;
    } cases[] = {
        {"bytes=0-99", 1000, true, 0, 99},
        {"bytes=100-", 1000, true, 100, 999},
        {"bytes=0-", 1000, true, 0, 999},            // what ffmpeg sends
        {"bytes=-100", 1000, true, 900, 999},        // suffix
        {"bytes=-5000", 1000, true, 0, 999},         // suffix longer than the file
        {"bytes=500-5000", 1000, true, 500, 999},    // end clamped
        {"bytes=999-999", 1000, true, 999, 999},
        {"Bytes=1-2", 1000, true, 1, 2},             // the unit is case-insensitive
        {" bytes=1-2 ,", 1000, true, 1, 2},          // OWS and empty list elements
        {"bytes=0-99999999999999999999999", 1000, true, 0, 999},
        {"bytes=1000-", 1000, false, 0, 0},          // starts at the end
        {"bytes=1000-2000", 1000, false, 0, 0},
        {"bytes=99999999999999999999999-", 1000, false, 0, 0},
        {"bytes=-0", 1000, false, 0, 0},             // empty suffix
        {"bytes=5-4", 1000, false, 0, 0},            // backwards
        {"bytes=0-0", 0, false, 0, 0},               // empty file
        {"bytes=-1", 0, false, 0, 0},
        {"bytes=0-1,5-6", 1000, false, 0, 0},        // multi-range
        {"bytes=0-1, -5", 1000, false, 0, 0},
        {"bytes=", 1000, false, 0, 0},
        {"bytes=-", 1000, false, 0, 0},
        {"bytes=a-b", 1000, false, 0, 0},
        {"bytes=1", 1000, false, 0, 0},
        {"bytes=+1-2", 1000, false, 0, 0},
        {"bytes = 1-2", 1000, false, 0, 0},
        {"items=1-2", 1000, false, 0, 0},
        {"", 1000, false, 0, 0},
    };
    for (const Case& c : cases) {
        uint64_t start = 7, end = 7;
        EXPECT_EQ(c.ok, parse_http_range(c.value, c.size, &start, &end)) << c.value;
        if (c.ok) {
            EXPECT_EQ(c.start, start) << c.value;
            EXPECT_EQ(c.end, end) << c.value;
        } else {
            EXPECT_EQ(7u, start) << c.value;  // untouched
            EXPECT_EQ(7u, end) << c.value;
        }
    }
}

TEST(HttpResponseTest, MimeTypes) {
    const std::pair<const char*, const char*> cases[] = {
        {"/index.html", "text/html; charset=utf-8"},
        {"/a.HTM", "text/html; charset=utf-8"},
        {"/js/app.js", "text/javascript; charset=utf-8"},
        {"/m.mjs", "text/javascript; charset=utf-8"},
        {"/s.css", "text/css; charset=utf-8"},
        {"/api.json", "application/json"},
        {"/r.txt", "text/plain; charset=utf-8"},
        {"/crossdomain.xml", "application/xml"},
        {"/i.svg", "image/svg+xml"},
        {"/i.png", "image/png"},
        {"/i.jpg", "image/jpeg"},
        {"/i.JPEG", "image/jpeg"},
        {"/i.gif", "image/gif"},
        {"/favicon.ico", "image/x-icon"},
        {"/v.mp4", "video/mp4"},
        {"/live/livestream.flv", "video/x-flv"},
        {"/live/livestream-1.ts", "video/MP2T"},
        {"/live/livestream.m3u8", "application/vnd.apple.mpegurl"},
        {"/a.mp3", "audio/mpeg"},
        {"/a.aac", "audio/aac"},
        {"/w.wasm", "application/wasm"},
        {"/f.woff", "font/woff"},
        {"/f.woff2", "font/woff2"},
        {"/app.js.map", "application/json"},
        {"/README", "application/octet-stream"},
        {"/dir.flv/file", "application/octet-stream"},  // the extension of the last segment only
        {"/a.", "application/octet-stream"},
        {"/a.exe", "application/octet-stream"},
        {"", "application/octet-stream"},
        {"x.ts", "video/MP2T"},
    };
    for (const auto& [path, type] : cases) EXPECT_EQ(type, http_mime_type(path)) << path;
}

TEST(HttpResponseTest, Dates) {
    EXPECT_EQ("Sun, 06 Nov 1994 08:49:37 GMT", http_date(784111777));  // RFC 9110's example
    EXPECT_EQ("Thu, 01 Jan 1970 00:00:00 GMT", http_date(0));
    EXPECT_EQ("Sat, 21 Nov 2026 10:00:00 GMT", http_date(1795255200));
    EXPECT_EQ("", http_date(static_cast<time_t>(INT64_MAX)));
}

TEST(HttpResponseTest, UrlDecode) {
    EXPECT_EQ("a b", url_decode("a%20b", false));
    EXPECT_EQ("a+b", url_decode("a+b", false));
    EXPECT_EQ("a b", url_decode("a+b", true));
    EXPECT_EQ("/\xff", url_decode("%2F%fF", false));
    EXPECT_EQ(std::string("a\0b", 3), url_decode("a%00b", false));
    EXPECT_EQ("%", url_decode("%", false));
    EXPECT_EQ("%2", url_decode("%2", false));
    EXPECT_EQ("%zz%2", url_decode("%zz%2", true));
    EXPECT_EQ("%%41", url_decode("%%2541", false));  // decoded once
    EXPECT_EQ("", url_decode("", true));
}

TEST(HttpResponseTest, JsIdentifiers) {
    const char* good[] = {"cb", "_", "$", "jQuery123_456", "a.b.c", "$.fn", "A9$_", "window.srs_cb"};
    for (const char* s : good) EXPECT_TRUE(is_valid_js_identifier(s)) << s;
    EXPECT_TRUE(is_valid_js_identifier(std::string(64, 'a')));
    const char* bad[] = {"", "alert(1)", "a;b", "</script>", "1a", "a.1b", ".a", "a.", "a..b",
                         "a b", "a-b", "a\nb", "a[0]", "a=1", "\xc3\xa9", "a,b", "'a'", "a/b"};
    for (const char* s : bad) EXPECT_FALSE(is_valid_js_identifier(s)) << s;
    EXPECT_FALSE(is_valid_js_identifier(std::string(65, 'a')));
    EXPECT_FALSE(is_valid_js_identifier(std::string("a\0b", 3)));
}
