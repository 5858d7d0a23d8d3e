// libFuzzer target for protocol/redis: any bytes, fed whole and then split at
// a point the input chooses, must give the same replies (or both fail), never
// a crash, a leak or unbounded memory (the limits are small here).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "protocol/redis/redis_codec.hpp"

using namespace srs;

namespace {

// Every reply's describe(), then "!" when decoding failed.
std::string run(const uint8_t* data, size_t size, size_t split) {
    RedisDecoderLimits limits;
    limits.max_pending_bytes = 4096;
    limits.max_array_elements = 256;
    RedisReplyDecoder d(limits);
    std::string out;
    size_t parts[2][2] = {{0, split}, {split, size}};
    for (auto& p : parts) {
        if (Error err = d.feed(data + p[0], p[1] - p[0]); err.failed()) {
            err.ignore();
            return out + "!";
        }
        while (true) {
            RedisReply r;
            bool got = false;
            if (Error err = d.next(&r, &got); err.failed()) {
                err.ignore();
                return out + "!";
            }
            if (!got) break;
            out += r.describe() + "\n";
        }
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string whole = run(data, size, size);
    size_t split = size ? data[0] % (size + 1) : 0;
    std::string halves = run(data, size, split);
    // A pending-bytes limit can trip at a different reply when the bytes
    // come in two parts; without a failure the replies must be identical.
    bool failed = (!whole.empty() && whole.back() == '!') || (!halves.empty() && halves.back() == '!');
    if (!failed && whole != halves) abort();

    // Encoding any arguments taken from the input decodes back as an array of those strings.
    std::vector<std::string> args;
    for (size_t i = 0; i < size && args.size() < 8; i += 7) args.emplace_back(reinterpret_cast<const char*>(data) + i, size - i < 7 ? size - i : 7);
    std::string wire;
    redis_encode_command(args, &wire);
    RedisReplyDecoder d;
    if (Error err = d.feed(wire.data(), wire.size()); err.failed()) abort();
    RedisReply r;
    bool got = false;
    if (Error err = d.next(&r, &got); err.failed() || !got) abort();
    if (args.empty()) {
        if (r.type != RedisReplyType::kArray || !r.elements.empty()) abort();
        return 0;
    }
    if (r.type != RedisReplyType::kArray || r.elements.size() != args.size()) abort();
    for (size_t i = 0; i < args.size(); i++) {
        if (r.elements[i].str != args[i]) abort();
    }
    return 0;
}
