// Tests for kernel/flv: the writer's bytes against a real ffmpeg file, write ->
// read round trips, the reader fed whole, one byte at a time and in random
// pieces (same tags every time), broken streams, and every read made right
// before a PROT_NONE page.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel/flv/flv.hpp"
#include "kernel/codec/media_codec.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

// The whole of an FLV file written by ffmpeg 5.1 (4688 bytes):
//   ffmpeg -f lavfi -i testsrc=size=160x96:rate=10 -f lavfi -i sine=frequency=440:sample_rate=22050 -t 0.5
//     -pix_fmt yuv420p -c:v libx264 -profile:v main -g 10 -bf 2 -b:v 50k -c:a aac -ac 1 -b:a 24k
//     -metadata encoder=x -fflags +bitexact -f flv tiny.flv
// ffprobe: h264 Main level 11 160x96; aac LC 22050 Hz mono; 17 packets (+ onMetaData, two sequence
// headers and the AVC end of sequence that ffmpeg writes last).
const char* const kTinyFlv =
    "464c56010500000009000000001200010c0000000000000002000a6f6e4d65746144617461080000000c00086475726174696f6e003fe666"
    "6666666666000577696474680040640000000000000006686569676874004058000000000000000d766964656f6461746172617465004048"
    "6a000000000000096672616d6572617465004024000000000000000c766964656f636f646563696400401c000000000000000d617564696f"
    "6461746172617465004037700000000000000f617564696f73616d706c65726174650040d5888000000000000f617564696f73616d706c65"
    "73697a65004030000000000000000673746572656f0100000c617564696f636f6465636964004024000000000000000866696c6573697a65"
    "0040b2500000000000000009000001170900002a000000000000001700000000014d500bffe10016674d500beca146d80880000003008000"
    "000a078912cb01000468ebecb2000000350800000700000000000000af00138856e50000000012090007310000000000000017010000c800"
    "0002ba0605ffffb6dc45e9bde6d948b7962cd820d923eeef78323634202d20636f7265203136342072333039352062616565343030202d20"
    "482e3236342f4d5045472d342041564320636f646563202d20436f70796c65667420323030332d32303232202d20687474703a2f2f777777"
    "2e766964656f6c616e2e6f72672f783236342e68746d6c202d206f7074696f6e733a2063616261633d31207265663d33206465626c6f636b"
    "3d313a303a3020616e616c7973653d3078313a3078313131206d653d686578207375626d653d37207073793d31207073795f72643d312e30"
    "303a302e3030206d697865645f7265663d31206d655f72616e67653d3136206368726f6d615f6d653d31207472656c6c69733d3120387838"
    "6463743d302063716d3d3020646561647a6f6e653d32312c313120666173745f70736b69703d31206368726f6d615f71705f6f6666736574"
    "3d2d3220746872656164733d33206c6f6f6b61686561645f746872656164733d3120736c696365645f746872656164733d30206e723d3020"
    "646563696d6174653d3120696e7465726c616365643d3020626c757261795f636f6d7061743d3020636f6e73747261696e65645f696e7472"
    "613d3020626672616d65733d3220625f707972616d69643d3220625f61646170743d3120625f626961733d30206469726563743d31207765"
    "69676874623d31206f70656e5f676f703d3020776569676874703d32206b6579696e743d3130206b6579696e745f6d696e3d31207363656e"
    "656375743d343020696e7472615f726566726573683d302072635f6c6f6f6b61686561643d31302072633d616272206d62747265653d3120"
    "626974726174653d35302072617465746f6c3d312e302071636f6d703d302e36302071706d696e3d302071706d61783d3639207170737465"
    "703d342069705f726174696f3d312e34302061713d313a312e303000800000046a6588840033fffef5b17c0a6ae9af0e4d1ef6c2005ae4c1"
    "39ec6ef24585ce68be3d024b32945addb94bd80a4cf05657b1391aa3fea0624bb5994cbc2cb3162a98db682fabfe541996301da82e011265"
    "de4df075f21e5c1b2f57c28a7b526978e8bc525e97000f22ee11e5e816667fc9eb67dd95b175ed182d9708e0fedd0b0ae5947fb35fb5d930"
    "7ef35ad7167db8b7cc2a973d08d4670ec818a08dd95a1930d4e0e478b242ea67e6217ff13d6f72de07a3d110ec2e850ef9bff97ebffbc85a"
    "8e1cd538f78ff56fceac80de2dbb8bb4d000371a93a20ff60fcf6edb473d0951f07614c44129de4a5b16f0b39c9c2b66654454337b85c038"
    "bdfbd79918a7bd4c95982f9752c718fb48531cbafd3e95ea08df4bd56f7ee1bd724b1abbd8fe8088aa9e194e33e6e662288cf91cbf6c0e8d"
    "8fc0c8024883c1609c9ba0e8dd6ab0b108b12b2a2958964614272867b379a42fd66c2ddfb5c7bcaf8575a176eae76cfc8f3c2f821dee9e67"
    "bda2dd042d29f16368e97fb24e7afb13ae3756c56e957c3eb79aaf3e8798cc8a2b1a86cfa951908aba95ea6c69857eb2ed58698d8f6dd76f"
    "0825df6080eacfcf9899de6db7fa737e1def6d066ec5e9856d4d63c76a15beb04802950d207895d4543f960a2208e8dc341a1900bb60f0f6"
    "fa432ef8206f2abf8187d79497bec467f3814fb4873bb59593725ce4c03807f15403647fa53f372a70a5c5bbd3257e44fda098cb96cb650f"
    "0d1094709e5b3c9d4aa53bd3ef7a65fa4132e36be8df629e13d417a4fe754ed812187c9c7d172c5e26d2489d3635fc3da24dc71f946bfeb7"
    "80fcf3c40f792d7477308ab65ffad23603f404a25861b4b653e7fd95a2ab401c7652a164f09cb7b10f478684bbe18182ebe40b8e03f3999f"
    "1ff3dc8adfaf55a69bdc41643b066e7aaabd10e4af5e8622205cfdae428966fd1747be20e0ad0c6ec968a7578a005831a9602671cdb70ce4"
    "ba5710b769f03112f455851b3078d5e4ca29991bdde1dcd9f22e4fe1f2e87b64c76fb46a7e7e87253603c3efea9829e9d8e6bf053397be4a"
    "140f03439338ab8e3488177f4c8cf581a5a12e9258f5fa8ea3a0f79e39b69c92ef499d331aac92ba2b8a1ab847d0b55d3b28aa50ef4ac98d"
    "a0894b86da5b624bbf920a83ff64a7d8b1e0de4f33bb14a392f8d8fd002f26571aadd1b74d6ba89ef4728bd8de9710c8f03162d6d2a1c18a"
    "22dcc86258cb84b573ccafc82b86e8b0c8a202222a6964b6b569c30c858119ba5d88894818970a31ea9d276fd355d7cd04eb1cdeff7ed5d9"
    "9316706d0a59d601dee2b6e43e4535622ede14c399ee25ac3987c4ed99ff20f6273f8feccf06ee0c341ab629eca2d4e6c6195abc702d7356"
    "7606b440995ef0d3fc462a6ae9027cfd1ffb50bddab3dea6c090db1c7674262c88c0f03686865e11e2f8243eeb2492684720d0395d88a2f6"
    "cfaeaf4e6161d8b4de8268cb79493b0e24057096fb61d031d69c6419da9d622cbce9989c1b4ce1d35a1208645561b40d731b074c3161acef"
    "58eec0515661fa764a7483b6293289021c85b68c961238841c096758c28ec611ec7c51766c67812e45f7810000073c090000630000640000"
    "000027010000c80000005a419a216c433ffe03fd601bba9a30cae003ef0ae699c931b61bd7556d1cac575e2fb779502d781f6412bbad7ead"
    "06438ccb10920c125cd2477e0c2b7e98917d9c9d061dd9576dc9cfa2ee1d66f7bf940d2d3b1d15b29a0c6193f80000006e080000dd00009a"
    "00000000af01de02004c61766335392e33372e313030000268aa54d2ee33f4e3ce71eb9f1fe357266a776924926e4444581b35c56267a742"
    "042163a45fa476ee531d3b2589e3f0dfadf259ae9598e5d5dad4ed8ab32559927d6d1ad9aaa32b8c94a552934a5529340c0da58181818181"
    "81818181818181818181818181818181818181818181818181a5965965965965965965965965965965965965965965965965965965965965"
    "9659659659659659659659659659659659659659659659659659659659659659659659659659659659659659659659659659659659659659"
    "78000000e80900006f0000c80000000027010000c800000066419a423c2193298433fffdf100e2e68fa71a63eb3de2dc265280126e0c4b05"
    "275acfa6c05b106386dc859771a60d1bb3a56694f6b789e29a41aecc65d11237ab02765806531349ad8f8736fbba28e11723224f89eaf759"
    "0eef6d3d559bca51fe11be5a7e8b810000007a080000c30000c800000000af0101129adaca75aec97b64bbd226c97afffa7ffdfe3ad5dea3"
    "aae7e7ffeb7feff5d7177ad4d3fbfffd5ffe7efd717ad70f37ff1fff57ffb7c75ad4ea5cb0eded2619060606060606060606069ebf5315ec"
    "2716c08c8c62351151ae2a3e9151f48a8fa6ee2541be9af8c465fd35e58a836ed63e5c4a859be9bbe90d5130ccfa6e09a8440c600e6e353f"
    "246f4a6026d4466451b228de8a37a20f45100f3228a30f3228829e62021460f3c9ad2809f8c80d74262a79e79e79fe5cdcca7e713284d301"
    "c0000000ce080000780000f600000000af01012cf519023a19574c2164d4f7f6dffaff1e3ffd7d9eba9a69769716b891c243a0066cc8055e"
    "0ef839f5d297fe6f59ca6c3d67298d25018d1acc07bfb90c9f0067f72193e330cfee41ff83077de10ffc180f7843ff0d81ee407c6609ed94"
    "3ff1983b9e1077004942070e0139c03e6168589c536e77e0000000830800008800012500000000af0100ea3508d662799507a240e8503a26"
    "f75839fffb75ffcfe2238cbf1c54865c55e69fc554a13f39253a4446c0e760a3c297c9c2509986907033ddfa74b34f7962f398bce5c19a58"
    "88825d4a0b14a1464f9f623db31e8072cbd0c15866be4c979ffa02ab920c51fa0ef92b117191de5ac0c31681a215d2c27e55e2406cfd73a4"
    "5553a51e5c65e0000000930900004900012c0000000027010000c800000040419a6349e10f26530213fffa580979aea0b3a9e5640001368b"
    "8a95478722638ac2847b028f17b21d72e34c20e3996a36e6545896804104f928ad923724bdd2e0000000540800009300015300000000af01"
    "013e3500225b31f9ffee9cc3c7ff1f3ff9febc2b5bd6f8c4b316abc85d5011bc7fa8e913b4277215f6cb3448e5901f2820e99cee99d6693b"
    "6b46c8d992b16b5a51b2cd675b8d5572a27c2c91d42368516b1b5b7b595e6e1af875a3926269d92cfc037b3d936d92692ba9695ed51effd4"
    "e32c0847b2c9ad18ce5d74ca65f462da94929a79b022684e4b27b138108aa4a3c00000009e0800007900018200000000af0100f43508f652"
    "59b34421d0a8744d6dce66b9ffb7dbfdffc6a38ceb29af1a989add494f8a88047c9092444715d516d7d663a09673a08a00308a2444422c50"
    "58843886a460bfb8f74ef8949de99d39c90f8bb034e19e51c1484199ab917fb006ad0ca17b69f0e609d3565891574654f4a58d1598606c9b"
    "7000000084090000730001900000000027010000c80000006a419a8449e10f26530217fffde1016990320790f2e080010b58fa3ce9d65fdd"
    "19a9d3eec685e37d3d22e41d640488941b004c4b7c74acf6e2bbf7ce854fe7270c5f714a11a0f10a0c26c6177e82067e77cddab0b704c733"
    "b69992249b3a0d5b3846b0c1c7578331d168790000007e080000b70001b000000000af01013e3500286b293d4c82d0a19fffeb7c92bffa7d"
    "bff6fd7485ef5324cd56b25d5e34895283dc9a69bd2566cbfa615d588e8059eb50af25012e8a0c6a28a2831a8a0c16b0b9127340b028656b"
    "0286bd7a2827d313f1b5ef570b312d0220346f32eb86bf7727775c11819bcad6fa5a3ae8857dcb5fddaee0a1745855f3836409aef8bf91b3"
    "5c0bbf2882418580e55820ddf812f63d70571c75ce912d7b2f37672f18c95cf85001025acf1a24a90fc245b4b136dfb4ef000000c2080000"
    "910001df00000000af0100f23508f65291884da1316857c6fdeb1bffc7e7ff7fc7566759dfb2b9eafbd5f35a2a8fabd8234f1f9232fc854c"
    "95cc5ffaac702196c074b030d9f2f96cab6710840d8594221ba6881ff02c040e8ca69bdf53ff80ca01dfdf12a652b26c1756c7ac2bb75766"
    "78517d7abb3a4675cb2f558563f0d7b2749bc4a95a408096cfdbc390d1af1db4377a4d32f4b14acdc00000009c0800007d00020d00000000"
    "af01013e3500286b2934ce43d120748fff927ac64fffb5cffebf7bcb8e39eb2a5ee6ee6b9d61a751281d94b744eb944a312dca1d3240056f"
    "4c834c281279ef60e733cd997050e8798b5df59d63cd06c593bad3b5e83c9c21b93427482795c1c39742f0fb360d7624ad7a8603ca903726"
    "b093ce9bdc5f49726cabbdda9c000000880800008900023c00000000af0100ee3508f65262a047a230e8545a173d7cd39d78fffb35ffeef8"
    "cbad49552ea937aa5d55bf148061e139e79d9bd339c042ba5d9fd7d4591adce79e7529539cfea379d416708ea15493faab450a66c254a892"
    "dd794d888055d0a4c04155b9c26df4dae55f968a3785adc69dbacd5eba34fbf122b33c3b1285a935262164b8d48aab653366d30a38000000"
    "940800008300026a00000000af01012a3529a8727e988294bcce33f8fb7febae6e5ee45a44924491d110e8003b910e1c2302ab7440e5bc4a"
    "933406cf864317569c33634d189feb88f9603840fe00f983ec3644b635f774c98557d57c7747a6bc6b4e122eabea6477578d78d726085d57"
    "aae8ee3635a0e8c10b531423c4d8d69085a2faaf8d811e0abd5b54c310c7800000008e0800008a00029800000000af01013e351a252d1107"
    "4441d0aeb2eab39f7afc75a9beb769224492490e99a8b82bab1a305c630b31b64a66ac694af0925c4a4be6ae4a68ac718c1589ce6776dd97"
    "764cee34e686e1e7e6826dcfbafb4e34e42dc269a0992fba869c53216e134d04cebeb71a71a642df341340775f75c69c53216ca0992775a7"
    "14dc269a0992dc304d01dd7d6869c570000000950900000500019000000000170200000000000010";

struct ExpectedTag {
    uint8_t type;
    uint32_t timestamp;
    uint32_t size;
};

// Every tag of tiny.flv (type, timestamp, data size), read independently with a script.
const ExpectedTag kTinyTags[] = {
    {18, 0, 268},  {9, 0, 42},    {8, 0, 7},     {9, 0, 1841},  {9, 100, 99},  {8, 154, 221}, {9, 200, 111},
    {8, 200, 195}, {8, 246, 120}, {8, 293, 136}, {9, 300, 73},  {8, 339, 147}, {8, 386, 121}, {9, 400, 115},
    {8, 432, 183}, {8, 479, 145}, {8, 525, 125}, {8, 572, 137}, {8, 618, 131}, {8, 664, 138}, {9, 400, 5},
};

struct ReadResult {
    std::vector<FlvTag> tags;
    size_t consumed = 0;
    bool failed = false;
    int error_code = 0;
    uint64_t mismatches = 0;
};

// Feeds `input` in pieces of the sizes `next_piece` returns, keeping the
// unconsumed tail as a real caller does, each feed placed before a guard page.
template <typename NextPiece>
ReadResult read_in_pieces(const std::vector<uint8_t>& input, NextPiece next_piece, FlvReader* reader) {
    ReadResult r;
    GuardPage guard(input.size());
    std::vector<uint8_t> pending;
    size_t offset = 0;
    while (offset < input.size()) {
        size_t piece = std::min(next_piece(), input.size() - offset);
        pending.insert(pending.end(), input.begin() + offset, input.begin() + offset + piece);
        offset += piece;
        size_t used = 0;
        Error err = reader->feed(guard.place(pending.data(), pending.size()), pending.size(), &used, &r.tags);
        EXPECT_LE(used, pending.size());
        pending.erase(pending.begin(), pending.begin() + used);
        r.consumed += used;
        if (!err.ok()) {
            r.failed = true;
            r.error_code = err.code();
            err.ignore();
            break;
        }
    }
    r.mismatches = reader->previous_tag_size_mismatches();
    return r;
}

ReadResult read_all(const std::vector<uint8_t>& input, size_t piece) {
    FlvReader reader;
    return read_in_pieces(input, [piece] { return piece; }, &reader);
}

void expect_same_tags(const std::vector<FlvTag>& a, const std::vector<FlvTag>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); i++) {
        EXPECT_EQ(a[i].type, b[i].type) << i;
        EXPECT_EQ(a[i].timestamp, b[i].timestamp) << i;
        ASSERT_EQ(a[i].data.size(), b[i].data.size()) << i;
        EXPECT_EQ(0, memcmp(a[i].data.data(), b[i].data.data(), a[i].data.size())) << i;
    }
}

std::string header_hex(const uint8_t* p, size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; i++) {
        s.push_back(digits[p[i] >> 4]);
        s.push_back(digits[p[i] & 15]);
    }
    return s;
}

// Appends one tag (header, body, PreviousTagSize) with the writer.
void append_tag(std::string* out, uint8_t type, uint32_t timestamp, const std::string& body) {
    uint8_t h[11], pts[4];
    FlvWriter::write_tag_header(h, type, timestamp, static_cast<uint32_t>(body.size()));
    FlvWriter::write_previous_tag_size(pts, static_cast<uint32_t>(11 + body.size()));
    out->append(reinterpret_cast<char*>(h), 11);
    out->append(body);
    out->append(reinterpret_cast<char*>(pts), 4);
}

std::vector<uint8_t> to_vec(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

}  // namespace

TEST(FlvWriter, MatchesFfmpegBytes) {
    std::vector<uint8_t> file = unhex(kTinyFlv);
    std::string header;
    FlvWriter::write_header(&header, true, true);
    ASSERT_EQ(header.size(), 13u);
    EXPECT_EQ(0, memcmp(header.data(), file.data(), 13));  // 464c5601 05 00000009 00000000

    std::string video_only;
    FlvWriter::write_header(&video_only, false, true);
    EXPECT_EQ(header_hex(reinterpret_cast<const uint8_t*>(video_only.data()), 13), "464c56010100000009" "00000000");
    // Tag headers of tiny.flv: the first P frame (type 9, 100 ms, 99 bytes) and an audio tag.
    uint8_t h[11];
    FlvWriter::write_tag_header(h, 9, 100, 99);
    EXPECT_EQ(header_hex(h, 11), "0900006300006400000000");
    FlvWriter::write_tag_header(h, 8, 154, 221);
    EXPECT_EQ(header_hex(h, 11), "080000dd00009a00000000");
    // Timestamps past 24 bits go to the extended byte (bits 24..31).
    FlvWriter::write_tag_header(h, 18, 0x12345678u, 0xffffff);
    EXPECT_EQ(header_hex(h, 11), "12ffffff34567812000000");
    uint8_t pts[4];
    FlvWriter::write_previous_tag_size(pts, 11 + 99);
    EXPECT_EQ(header_hex(pts, 4), "0000006e");
}

TEST(FlvReader, ReadsRealFfmpegFile) {
    std::vector<uint8_t> file = unhex(kTinyFlv);
    ASSERT_EQ(file.size(), 4688u);
    FlvReader reader;
    std::vector<FlvTag> tags;
    size_t consumed = 0;
    GuardPage guard(file.size());
    ASSERT_TRUE(ok(reader.feed(guard.place(file.data(), file.size()), file.size(), &consumed, &tags)));
    EXPECT_EQ(consumed, file.size());
    EXPECT_TRUE(reader.header_parsed());
    EXPECT_TRUE(reader.has_audio());
    EXPECT_TRUE(reader.has_video());
    EXPECT_EQ(reader.previous_tag_size_mismatches(), 0u);
    ASSERT_EQ(tags.size(), sizeof(kTinyTags) / sizeof(kTinyTags[0]));
    EXPECT_EQ(reader.tags_read(), tags.size());
    for (size_t i = 0; i < tags.size(); i++) {
        EXPECT_EQ(tags[i].type, kTinyTags[i].type) << i;
        EXPECT_EQ(tags[i].timestamp, kTinyTags[i].timestamp) << i;
        EXPECT_EQ(tags[i].data.size(), kTinyTags[i].size) << i;
    }

    // The bodies parse as ffprobe describes the streams.
    int keyframes = 0, video_frames = 0, audio_frames = 0, eos = 0;
    for (const FlvTag& t : tags) {
        if (t.type == kFlvTagVideo) {
            VideoPacketInfo info;
            ASSERT_TRUE(ok(parse_video_packet(t.data.data(), t.data.size(), &info)));
            EXPECT_EQ(info.codec, VideoCodec::kH264);
            if (info.sequence_header) {
                VideoCodecConfig config;
                ASSERT_TRUE(ok(parse_avc_sequence_header(info.data, info.size, &config)));
                EXPECT_EQ(config.profile, "Main");
                // ffprobe prints level_idc 11; with constraint_set3_flag in Main that is level 1b (A.3.1),
                // which x264 picked for this tiny stream.
                EXPECT_EQ(config.level, "1b");
                EXPECT_EQ(config.width, 160);
                EXPECT_EQ(config.height, 96);
            } else if (info.end_of_sequence) {
                eos++;
            } else {
                video_frames++;
                keyframes += info.keyframe;
                EXPECT_EQ(info.composition_time, 200);  // -bf 2 at 10 fps: pts - dts = 200 ms for all
            }
            EXPECT_EQ(is_video_keyframe(t.data.data(), t.data.size()), info.keyframe);
        } else if (t.type == kFlvTagAudio) {
            AudioPacketInfo info;
            ASSERT_TRUE(ok(parse_audio_packet(t.data.data(), t.data.size(), &info)));
            EXPECT_EQ(info.codec, AudioCodec::kAAC);
            if (info.sequence_header) {
                AudioCodecConfig config;
                ASSERT_TRUE(ok(parse_aac_sequence_header(info.data, info.size, &config)));
                EXPECT_EQ(config.profile, "LC");
                EXPECT_EQ(config.sample_rate, 22050);
                EXPECT_EQ(config.channels, 1);
            } else {
                audio_frames++;
            }
        }
    }
    EXPECT_EQ(video_frames + audio_frames, 17);  // ffprobe -show_packets
    EXPECT_EQ(video_frames, 5);
    EXPECT_EQ(keyframes, 1);
    EXPECT_EQ(eos, 1);
}

TEST(FlvReader, SameTagsWholeOneByteAtATimeAndInRandomPieces) {
    std::vector<uint8_t> file = unhex(kTinyFlv);
    ReadResult whole = read_all(file, file.size());
    ASSERT_FALSE(whole.failed);
    ReadResult bytewise = read_all(file, 1);
    ASSERT_FALSE(bytewise.failed);
    EXPECT_EQ(bytewise.consumed, file.size());
    expect_same_tags(whole.tags, bytewise.tags);

    std::mt19937 rng(42);
    for (int round = 0; round < 20; round++) {
        FlvReader reader;
        ReadResult r = read_in_pieces(file, [&] { return static_cast<size_t>(rng() % 700 + 1); }, &reader);
        ASSERT_FALSE(r.failed);
        EXPECT_EQ(r.consumed, file.size());
        expect_same_tags(whole.tags, r.tags);
    }
}

TEST(FlvReader, EveryPrefixBeforeAGuardPage) {
    std::vector<uint8_t> file = unhex(kTinyFlv);
    GuardPage guard(file.size());
    size_t previous_tags = 0;
    for (size_t n = 0; n <= file.size(); n++) {
        FlvReader reader;
        std::vector<FlvTag> tags;
        size_t consumed = 0;
        ASSERT_TRUE(ok(reader.feed(guard.place(file.data(), n), n, &consumed, &tags))) << n;
        EXPECT_LE(consumed, n);
        EXPECT_GE(tags.size(), previous_tags);  // monotonic: whole tags only
        previous_tags = tags.size();
    }
    EXPECT_EQ(previous_tags, sizeof(kTinyTags) / sizeof(kTinyTags[0]));
}

TEST(FlvReader, RoundTripsWhatTheWriterWrites) {
    std::string flv;
    FlvWriter::write_header(&flv, true, false);
    std::mt19937 rng(7);
    struct Written {
        uint8_t type;
        uint32_t timestamp;
        std::string body;
    };
    std::vector<Written> written;
    const uint8_t types[] = {kFlvTagAudio, kFlvTagVideo, kFlvTagScript};
    uint32_t timestamps[] = {0, 1, 0xffffff, 0x1000000, 0x7fffffff, 0xffffffff};
    for (int i = 0; i < 60; i++) {
        Written w;
        w.type = types[i % 3];
        w.timestamp = i < 6 ? timestamps[i] : rng();
        size_t size = (i == 3) ? 0 : (i == 4) ? 70000 : rng() % 300;
        for (size_t j = 0; j < size; j++) w.body.push_back(static_cast<char>(rng()));
        append_tag(&flv, w.type, w.timestamp, w.body);
        written.push_back(w);
    }
    std::vector<uint8_t> input = to_vec(flv);
    for (size_t piece : {input.size(), size_t{1}, size_t{4096}}) {
        ReadResult r = read_all(input, piece);
        ASSERT_FALSE(r.failed);
        EXPECT_EQ(r.consumed, input.size());
        EXPECT_EQ(r.mismatches, 0u);
        ASSERT_EQ(r.tags.size(), written.size());
        for (size_t i = 0; i < written.size(); i++) {
            EXPECT_EQ(r.tags[i].type, written[i].type);
            EXPECT_EQ(r.tags[i].timestamp, written[i].timestamp);
            ASSERT_EQ(r.tags[i].data.size(), written[i].body.size());
            EXPECT_EQ(0, memcmp(r.tags[i].data.data(), written[i].body.data(), written[i].body.size()));
        }
    }
    // Re-writing what was read gives the same bytes.
    ReadResult r = read_all(input, input.size());
    std::string again;
    FlvWriter::write_header(&again, true, false);
    for (const FlvTag& t : r.tags) {
        append_tag(&again, t.type, t.timestamp, std::string(reinterpret_cast<const char*>(t.data.data()), t.data.size()));
    }
    EXPECT_EQ(again, flv);
}

TEST(FlvReader, RejectsBadHeaders) {
    struct {
        const char* what;
        std::vector<uint8_t> bytes;
    } cases[] = {
        {"signature", {'F', 'L', 'X', 1, 5, 0, 0, 0, 9, 0, 0, 0, 0}},
        {"first byte", {'G'}},
        {"version", {'F', 'L', 'V', 2, 5, 0, 0, 0, 9, 0, 0, 0, 0}},
        {"data offset 8", {'F', 'L', 'V', 1, 5, 0, 0, 0, 8, 0, 0, 0, 0}},
        {"data offset 4G", {'F', 'L', 'V', 1, 5, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}},
    };
    for (const auto& c : cases) {
        for (size_t piece : {c.bytes.size(), size_t{1}}) {
            ReadResult r = read_all(c.bytes, piece);
            EXPECT_TRUE(r.failed) << c.what;
            EXPECT_EQ(r.error_code, kErrorFlvHeader) << c.what;
            EXPECT_EQ(r.consumed, 0u) << c.what;
        }
    }
    // A bad signature is seen at its first byte, without waiting for the rest of the header.
    FlvReader reader;
    std::vector<FlvTag> tags;
    size_t consumed = 0;
    const uint8_t f_l_x[] = {'F', 'L', 'X'};
    EXPECT_TRUE(ok(reader.feed(f_l_x, 2, &consumed, &tags)));
    EXPECT_FALSE(ok(reader.feed(f_l_x, 3, &consumed, &tags)));
    EXPECT_FALSE(ok(reader.feed(f_l_x, 2, &consumed, &tags)));  // stays failed

    // A longer header (DataOffset 12) is skipped.
    std::vector<uint8_t> longer = {'F', 'L', 'V', 1, 4, 0, 0, 0, 12, 0xaa, 0xbb, 0xcc, 0, 0, 0, 0};
    std::string tag;
    append_tag(&tag, kFlvTagAudio, 5, "\xaf\x01zz");
    longer.insert(longer.end(), tag.begin(), tag.end());
    ReadResult r = read_all(longer, 1);
    ASSERT_FALSE(r.failed);
    ASSERT_EQ(r.tags.size(), 1u);
    EXPECT_EQ(r.tags[0].timestamp, 5u);
}

TEST(FlvReader, RejectsBadTagsAfterTheGoodOnes) {
    std::string flv;
    FlvWriter::write_header(&flv, true, true);
    append_tag(&flv, kFlvTagVideo, 0, "\x17\x01\x00\x00\x00");
    size_t good_end = flv.size();
    struct {
        const char* what;
        uint8_t byte0;
        uint32_t stream_id;
        int code;
    } cases[] = {
        {"tag type 7", 7, 0, kErrorFlvTagType},
        {"tag type 15 (AMF3 data)", 15, 0, kErrorFlvTagType},
        {"filter bit", 0x20 | 9, 0, kErrorFlvTagType},
        {"reserved bits", 0x40 | 8, 0, kErrorFlvTagType},
        {"stream id", 9, 1, kErrorFlvTagType},
    };
    for (const auto& c : cases) {
        std::string bad = flv;
        append_tag(&bad, kFlvTagAudio, 0, "\xaf\x01");
        bad[good_end] = static_cast<char>(c.byte0);
        bad[good_end + 10] = static_cast<char>(c.stream_id);
        append_tag(&bad, kFlvTagAudio, 0, "\xaf\x01");
        for (size_t piece : {bad.size(), size_t{1}}) {
            ReadResult r = read_all(to_vec(bad), piece);
            EXPECT_TRUE(r.failed) << c.what;
            EXPECT_EQ(r.error_code, c.code) << c.what;
            EXPECT_EQ(r.tags.size(), 1u) << c.what;  // the good tag before it was delivered
            EXPECT_EQ(r.consumed, good_end) << c.what;
        }
    }
}

TEST(FlvReader, OversizedTags) {
    std::string flv;
    FlvWriter::write_header(&flv, false, true);
    append_tag(&flv, kFlvTagVideo, 0, std::string(2000, 'x'));
    FlvReader limited;
    limited.set_max_tag_size(1000);
    std::vector<FlvTag> tags;
    size_t consumed = 0;
    EXPECT_EQ(code(limited.feed(reinterpret_cast<const uint8_t*>(flv.data()), 13 + 11, &consumed, &tags)),
              kErrorFlvTagSize);  // refused from the header alone, before the body arrives
    EXPECT_EQ(consumed, 13u);

    // The UI24 maximum (16 MiB - 1) is accepted by default: the reader waits for the bytes.
    std::string huge;
    FlvWriter::write_header(&huge, false, true);
    uint8_t h[11];
    FlvWriter::write_tag_header(h, kFlvTagVideo, 0, kFlvMaxDataSize);
    huge.append(reinterpret_cast<char*>(h), 11);
    huge.append(100, 'y');
    FlvReader reader;
    tags.clear();
    ASSERT_TRUE(ok(reader.feed(reinterpret_cast<const uint8_t*>(huge.data()), huge.size(), &consumed, &tags)));
    EXPECT_EQ(consumed, 13u);
    EXPECT_TRUE(tags.empty());
    FlvReader capped;
    capped.set_max_tag_size(0xffffffffu);
    EXPECT_EQ(capped.max_tag_size(), kFlvMaxDataSize);
}

TEST(FlvReader, ToleratesAndCountsPreviousTagSizeMismatches) {
    std::string flv;
    FlvWriter::write_header(&flv, true, false);
    append_tag(&flv, kFlvTagAudio, 0, "\xaf\x00\x12\x10");
    flv[flv.size() - 1] = 0x7f;  // wrong PreviousTagSize
    append_tag(&flv, kFlvTagAudio, 23, "\xaf\x01\x21");
    flv[12] = 1;  // PreviousTagSize0 not 0
    for (size_t piece : {flv.size(), size_t{1}}) {
        ReadResult r = read_all(to_vec(flv), piece);
        ASSERT_FALSE(r.failed);
        EXPECT_EQ(r.tags.size(), 2u);
        EXPECT_EQ(r.mismatches, 2u);
    }
}
