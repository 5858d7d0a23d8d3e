// RESP codec: commands encoded byte for byte, every reply type decoded from
// real bytes (as redis-server 7 sends them), fed whole, one byte at a time
// and from right before a PROT_NONE page, and broken input as errors.
#include <gtest/gtest.h>

#include "protocol/redis/redis_codec.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using srs::utest::GuardedBytes;

namespace {

// Feeds everything, takes every reply; the error of the first failing step.
Error decode_all(RedisReplyDecoder* d, const std::string& bytes, std::vector<RedisReply>* out) {
    GuardedBytes g(bytes);
    if (Error err = d->feed(g.data(), g.size()); err.failed()) return err;
    while (true) {
        RedisReply r;
        bool got = false;
        if (Error err = d->next(&r, &got); err.failed()) return err;
        if (!got) return Error();
        out->push_back(std::move(r));
    }
}

RedisReply decode_one(const std::string& bytes) {
    RedisReplyDecoder d;
    std::vector<RedisReply> out;
    Error err = decode_all(&d, bytes, &out);
    EXPECT_TRUE(err.ok()) << err.summary();
    err.ignore();
    EXPECT_EQ(out.size(), 1u) << bytes;
    return out.empty() ? RedisReply() : std::move(out[0]);
}

}  // namespace

TEST(RedisCodec, EncodesACommandAsAnArrayOfBulkStrings) {
    std::string out;
    redis_encode_command({"SET", "srs:stream:v/live/x", "rtmp://10.0.0.1:1935", "NX", "PX", "10000"}, &out);
    EXPECT_EQ(out,
              "*6\r\n$3\r\nSET\r\n$19\r\nsrs:stream:v/live/x\r\n$20\r\nrtmp://10.0.0.1:1935\r\n"
              "$2\r\nNX\r\n$2\r\nPX\r\n$5\r\n10000\r\n");
}

TEST(RedisCodec, EncodingIsBinarySafe) {
    std::string out;
    std::string bin("a\0\r\nb", 5);
    redis_encode_command({"GET", bin, ""}, &out);
    EXPECT_EQ(out, std::string("*3\r\n$3\r\nGET\r\n$5\r\na\0\r\nb\r\n$0\r\n\r\n", 30));
}

TEST(RedisCodec, DecodesEveryReplyType) {
    RedisReply r = decode_one("+OK\r\n");
    EXPECT_EQ(r.type, RedisReplyType::kStatus);
    EXPECT_EQ(r.str, "OK");

    r = decode_one("-ERR unknown command 'FOO'\r\n");
    EXPECT_EQ(r.type, RedisReplyType::kError);
    EXPECT_EQ(r.str, "ERR unknown command 'FOO'");
    EXPECT_TRUE(r.is_error());

    r = decode_one(":-42\r\n");
    EXPECT_EQ(r.type, RedisReplyType::kInteger);
    EXPECT_EQ(r.integer, -42);

    r = decode_one(":9223372036854775807\r\n");
    EXPECT_EQ(r.integer, INT64_MAX);

    r = decode_one("$20\r\nrtmp://10.0.0.1:1935\r\n");
    EXPECT_EQ(r.type, RedisReplyType::kString);
    EXPECT_EQ(r.str, "rtmp://10.0.0.1:1935");

    r = decode_one("$0\r\n\r\n");
    EXPECT_EQ(r.type, RedisReplyType::kString);
    EXPECT_EQ(r.str, "");

    r = decode_one("$-1\r\n");
    EXPECT_TRUE(r.is_nil());

    r = decode_one("*-1\r\n");
    EXPECT_TRUE(r.is_nil());

    r = decode_one("*0\r\n");
    EXPECT_EQ(r.type, RedisReplyType::kArray);
    EXPECT_TRUE(r.elements.empty());
}

TEST(RedisCodec, BulkStringsKeepBinaryBytes) {
    RedisReply r = decode_one(std::string("$5\r\na\0\r\nb\r\n", 11));
    EXPECT_EQ(r.str, std::string("a\0\r\nb", 5));
}

TEST(RedisCodec, DecodesNestedArrays) {
    // What EVAL "return {1, 'two', {3, false}, nil}" 0 answers... up to Lua's
    // nil ending the table: [1, "two", [3, nil]]; plus a status and an error inside.
    RedisReply r = decode_one("*5\r\n:1\r\n$3\r\ntwo\r\n*2\r\n:3\r\n$-1\r\n+QUEUED\r\n-WRONGTYPE x\r\n");
    ASSERT_EQ(r.type, RedisReplyType::kArray);
    ASSERT_EQ(r.elements.size(), 5u);
    EXPECT_EQ(r.elements[0].integer, 1);
    EXPECT_EQ(r.elements[1].str, "two");
    ASSERT_EQ(r.elements[2].type, RedisReplyType::kArray);
    ASSERT_EQ(r.elements[2].elements.size(), 2u);
    EXPECT_EQ(r.elements[2].elements[0].integer, 3);
    EXPECT_TRUE(r.elements[2].elements[1].is_nil());
    EXPECT_EQ(r.elements[3].type, RedisReplyType::kStatus);
    EXPECT_EQ(r.elements[4].type, RedisReplyType::kError);
    EXPECT_EQ(r.describe(), "[(integer) 1, \"two\", [(integer) 3, (nil)], QUEUED, (error) WRONGTYPE x]");
}

TEST(RedisCodec, PipelinedRepliesComeOutInOrder) {
    RedisReplyDecoder d;
    std::vector<RedisReply> out;
    ASSERT_TRUE(utest::ok(decode_all(&d, "+OK\r\n$-1\r\n:2\r\n*1\r\n$1\r\nx\r\n", &out)));
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0].str, "OK");
    EXPECT_TRUE(out[1].is_nil());
    EXPECT_EQ(out[2].integer, 2);
    EXPECT_EQ(out[3].elements[0].str, "x");
    EXPECT_EQ(d.pending_bytes(), 0u);
}

TEST(RedisCodec, OneByteAtATimeGivesTheSameReply) {
    const std::string bytes = "*3\r\n$20\r\nrtmp://10.0.0.1:1935\r\n*2\r\n:7\r\n+OK\r\n$-1\r\n";
    RedisReplyDecoder d;
    std::vector<RedisReply> out;
    for (size_t i = 0; i < bytes.size(); i++) {
        ASSERT_TRUE(utest::ok(decode_all(&d, bytes.substr(i, 1), &out))) << "at byte " << i;
        if (i + 1 < bytes.size()) {
            EXPECT_TRUE(out.empty()) << "a reply before the last byte, at " << i;
        }
    }
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].describe(), "[\"rtmp://10.0.0.1:1935\", [(integer) 7, OK], (nil)]");
}

TEST(RedisCodec, EveryPrefixNeedsMoreAndNeverFails) {
    const std::string bytes = "*2\r\n$3\r\nabc\r\n:12345\r\n";
    for (size_t n = 0; n < bytes.size(); n++) {
        RedisReplyDecoder d;
        std::vector<RedisReply> out;
        EXPECT_TRUE(utest::ok(decode_all(&d, bytes.substr(0, n), &out))) << n;
        EXPECT_TRUE(out.empty()) << n;
    }
}

TEST(RedisCodec, GarbageIsAnErrorAndTheDecoderStaysFailed) {
    const char* cases[] = {
        "?what\r\n",            // unknown type byte
        "HTTP/1.1 200 OK\r\n",  // not Redis at all
        ":12a\r\n",             // integer with junk
        "$abc\r\n",             // bulk length not a number
        "*x\r\n",               // array count not a number
        "$-5\r\n",              // negative length other than -1
    };
    for (const char* c : cases) {
        RedisReplyDecoder d;
        std::vector<RedisReply> out;
        Error err = decode_all(&d, c, &out);
        EXPECT_TRUE(err.failed()) << c;
        EXPECT_EQ(err.code(), kErrorRedisProtocol) << c;
        err.ignore();
        EXPECT_TRUE(d.failed()) << c;
        EXPECT_EQ(utest::code(d.feed("+OK\r\n", 5)), kErrorRedisProtocol);
        RedisReply r;
        bool got = true;
        EXPECT_EQ(utest::code(d.next(&r, &got)), kErrorRedisProtocol);
        EXPECT_FALSE(got);
    }
}

TEST(RedisCodec, TooDeepNestingIsAnError) {
    std::string deep;
    for (int i = 0; i < 12; i++) deep += "*1\r\n";
    deep += ":1\r\n";
    RedisReplyDecoder d;
    std::vector<RedisReply> out;
    EXPECT_EQ(utest::code(decode_all(&d, deep, &out)), kErrorRedisProtocol);
}

TEST(RedisCodec, HugeBulkLengthIsRefusedOnceOverTheLimit) {
    RedisDecoderLimits limits;
    limits.max_pending_bytes = 1024;
    RedisReplyDecoder d(limits);
    std::vector<RedisReply> out;
    // The header alone: hiredis waits for the body, nothing is allocated for it.
    ASSERT_TRUE(utest::ok(decode_all(&d, "$4000000000\r\n", &out)));
    EXPECT_TRUE(out.empty());
    // Bytes keep coming: refused once they pass the limit, not at 4 GB.
    std::string chunk(600, 'x');
    ASSERT_TRUE(utest::ok(decode_all(&d, chunk, &out)));
    EXPECT_EQ(utest::code(decode_all(&d, chunk, &out)), kErrorRedisReplyTooLarge);
    EXPECT_TRUE(d.failed());
}

TEST(RedisCodec, LengthsPastTheIntegerRangeAreErrors) {
    const char* cases[] = {"$99999999999999999999999\r\n", "*99999999999999999999999\r\n",
                           "*9223372036854775807\r\n"};
    for (const char* c : cases) {
        RedisReplyDecoder d;
        std::vector<RedisReply> out;
        Error err = decode_all(&d, c, &out);
        EXPECT_TRUE(err.failed()) << c;
        err.ignore();
    }
}

TEST(RedisCodec, HugeArrayCountIsRefusedBeforeAllocating) {
    RedisReplyDecoder d;  // default limit: 1 Mi elements
    std::vector<RedisReply> out;
    EXPECT_EQ(utest::code(decode_all(&d, "*2000000000\r\n", &out)), kErrorRedisReplyTooLarge);
    RedisDecoderLimits small;
    small.max_array_elements = 2;
    RedisReplyDecoder d2(small);
    EXPECT_EQ(utest::code(decode_all(&d2, "*1\r\n*3\r\n:1\r\n:2\r\n:3\r\n", &out)), kErrorRedisReplyTooLarge);
}

TEST(RedisCodec, ReplyDescribeKeepsLogsShortAndPrintable) {
    RedisReply r;
    r.type = RedisReplyType::kString;
    r.str = std::string(100, 'a') + "\n";
    std::string s = r.describe();
    EXPECT_LT(s.size(), 80u);
    EXPECT_EQ(s.find('\n'), std::string::npos);
}
