// Tests of protocol/rtmp_command: the command bodies ffmpeg 5.1 (Lavf59.27.100)
// sends when publishing (captured from a real session, chunk headers removed),
// typed views, server builders, and broken input under a guard page.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "protocol/rtmp/rtmp_command.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

std::string bytes_of(const SharedBytes& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

RtmpMessage message(uint8_t type, const std::string& payload) {
    RtmpMessage msg;
    msg.type = type;
    msg.payload = SharedBytes::copy_of(payload.data(), payload.size());
    return msg;
}

RtmpCommand decoded(const std::string& body) {
    RtmpCommand cmd;
    Error err = decode_rtmp_command(message(kRtmpAmf0Command, body), &cmd);
    EXPECT_TRUE(err.ok()) << err.summary();
    return cmd;
}

// Encode then decode again.
RtmpCommand through_wire(const RtmpCommand& cmd) { return decoded(bytes_of(encode_rtmp_command(cmd))); }

// ffmpeg publishing rtmp://127.0.0.1:19778/live/livestream, in order.
const char* kConnect =
    "020007636f6e6e656374003ff00000000000000300036170700200046c69766500047479706502000a6e6f6e7072"
    "69766174650008666c617368566572020024464d4c452f332e302028636f6d70617469626c653b204c6176663539"
    "2e32372e313030290005746355726c02001b72746d703a2f2f3132372e302e302e313a31393737382f6c69766500"
    "0009";
const char* kReleaseStream = "02000d72656c6561736553747265616d0040000000000000000502000a6c69766573747265616d";
const char* kFCPublish = "02000946435075626c6973680040080000000000000502000a6c69766573747265616d";
const char* kCreateStream = "02000c63726561746553747265616d00401000000000000005";
const char* kPublish = "0200077075626c6973680040140000000000000502000a6c69766573747265616d0200046c697665";
// publish of "livestream?token=abc".
const char* kPublishWithParam =
    "0200077075626c697368004014000000000000050200146c69766573747265616d3f746f6b656e3d616263020004"
    "6c697665";
// @setDataFrame onMetaData ecma{duration 2, width 320, height 240, videodatarate 0,
// framerate 25, videocodecid 7, encoder "Lavf59.27.100", filesize 0}.
const char* kSetDataFrame =
    "02000d40736574446174614672616d6502000a6f6e4d65746144617461080000000800086475726174696f6e0040"
    "0000000000000000057769647468004074000000000000000668656967687400406e000000000000000d76696465"
    "6f646174617261746500000000000000000000096672616d6572617465004039000000000000000c766964656f63"
    "6f646563696400401c0000000000000007656e636f64657202000d4c61766635392e32372e313030000866696c65"
    "73697a65000000000000000000000009";

const char* kAllBodies[] = {kConnect, kReleaseStream, kFCPublish, kCreateStream, kPublish, kPublishWithParam};

}  // namespace

TEST(RtmpCommandDecode, FfmpegPublishSequence) {
    RtmpCommand cmd = decoded(unhex_string(kConnect));
    EXPECT_EQ(cmd.name, "connect");
    EXPECT_EQ(cmd.transaction_id, 1);
    EXPECT_EQ(classify_rtmp_command(cmd.name), RtmpCommandKind::kConnect);
    RtmpConnectRequest connect;
    ASSERT_TRUE(parse_rtmp_request(cmd, &connect).ok());
    EXPECT_EQ(connect.tc_url, "rtmp://127.0.0.1:19778/live");
    EXPECT_EQ(connect.app, "live");
    EXPECT_EQ(connect.flash_ver, "FMLE/3.0 (compatible; Lavf59.27.100)");
    EXPECT_EQ(connect.swf_url, "");
    EXPECT_EQ(connect.object_encoding, 0);
    EXPECT_EQ(connect.object.get_string("type"), "nonprivate");
    EXPECT_TRUE(connect.args.empty());

    cmd = decoded(unhex_string(kReleaseStream));
    RtmpReleaseStreamRequest release;
    ASSERT_TRUE(parse_rtmp_request(cmd, &release).ok());
    EXPECT_EQ(release.transaction_id, 2);
    EXPECT_EQ(release.stream_name, "livestream");

    cmd = decoded(unhex_string(kFCPublish));
    RtmpFCPublishRequest fcpublish;
    ASSERT_TRUE(parse_rtmp_request(cmd, &fcpublish).ok());
    EXPECT_EQ(fcpublish.transaction_id, 3);
    EXPECT_EQ(fcpublish.stream_name, "livestream");

    cmd = decoded(unhex_string(kCreateStream));
    RtmpCreateStreamRequest create;
    ASSERT_TRUE(parse_rtmp_request(cmd, &create).ok());
    EXPECT_EQ(create.transaction_id, 4);
    EXPECT_TRUE(cmd.command_object.is_null());

    cmd = decoded(unhex_string(kPublish));
    RtmpPublishRequest publish;
    ASSERT_TRUE(parse_rtmp_request(cmd, &publish).ok());
    EXPECT_EQ(publish.transaction_id, 5);
    EXPECT_EQ(publish.stream_name, "livestream");
    EXPECT_EQ(publish.type, "live");

    cmd = decoded(unhex_string(kPublishWithParam));
    ASSERT_TRUE(parse_rtmp_request(cmd, &publish).ok());
    EXPECT_EQ(publish.stream_name, "livestream?token=abc");
}

TEST(RtmpCommandEncode, RoundTripsRealBodies) {
    for (const char* hex : kAllBodies) {
        std::string body = unhex_string(hex);
        EXPECT_EQ(bytes_of(encode_rtmp_command(decoded(body))), body) << hex;
    }
    // The typed views rebuild the same bytes ffmpeg sent.
    RtmpPublishRequest publish;
    ASSERT_TRUE(parse_rtmp_request(decoded(unhex_string(kPublish)), &publish).ok());
    EXPECT_EQ(bytes_of(encode_rtmp_command(to_rtmp_command(publish))), unhex_string(kPublish));
    RtmpConnectRequest connect;
    ASSERT_TRUE(parse_rtmp_request(decoded(unhex_string(kConnect)), &connect).ok());
    EXPECT_EQ(bytes_of(encode_rtmp_command(to_rtmp_command(connect))), unhex_string(kConnect));
    RtmpReleaseStreamRequest release;
    ASSERT_TRUE(parse_rtmp_request(decoded(unhex_string(kReleaseStream)), &release).ok());
    EXPECT_EQ(bytes_of(encode_rtmp_command(to_rtmp_command(release))), unhex_string(kReleaseStream));
    RtmpCreateStreamRequest create;
    ASSERT_TRUE(parse_rtmp_request(decoded(unhex_string(kCreateStream)), &create).ok());
    EXPECT_EQ(bytes_of(encode_rtmp_command(to_rtmp_command(create))), unhex_string(kCreateStream));
}

TEST(RtmpCommandDecode, Amf3CommandHasAFormatByte) {
    std::string body = unhex_string(kPublish);
    RtmpCommand cmd;
    ASSERT_TRUE(decode_rtmp_command(message(kRtmpAmf3Command, std::string(1, '\0') + body), &cmd).ok());
    EXPECT_EQ(cmd.name, "publish");
    EXPECT_EQ(cmd.args.size(), 2u);
    EXPECT_EQ(decode_rtmp_command(message(kRtmpAmf3Command, "\x01" + body), &cmd).code(), kErrorRtmpAmf3NotSupported);
    EXPECT_EQ(decode_rtmp_command(message(kRtmpAmf3Command, ""), &cmd).code(), kErrorAmf0Truncated);
    // An AMF3 value (avmplus-object marker 0x11) inside is not decoded.
    const std::string amf3_object = unhex_string("00 020001 61 00 0000000000000000 11 01");
    EXPECT_EQ(decode_rtmp_command(message(kRtmpAmf3Command, amf3_object), &cmd).code(), kErrorAmf0UnknownMarker);
    EXPECT_EQ(decode_rtmp_command(message(kRtmpVideo, body), &cmd).code(), kErrorRtmpCommandWrongType);
    EXPECT_EQ(decode_rtmp_command(message(kRtmpAmf0Data, body), &cmd).code(), kErrorRtmpCommandWrongType);
}

TEST(RtmpCommandDecode, MissingTrailingValues) {
    // onStatus with nothing after the name.
    RtmpCommand cmd = decoded(unhex_string("020008 6f6e537461747573"));
    EXPECT_EQ(cmd.name, "onStatus");
    EXPECT_EQ(cmd.transaction_id, 0);
    EXPECT_TRUE(cmd.command_object.is_null());
    EXPECT_TRUE(cmd.args.empty());
    EXPECT_EQ(cmd.arg(0), nullptr);
    // A name and a transaction id.
    cmd = decoded(unhex_string("02000c 63726561746553747265616d 00 4010000000000000"));
    EXPECT_EQ(cmd.transaction_id, 4);
    EXPECT_TRUE(cmd.command_object.is_null());
    // An undefined command object is kept as it came.
    cmd = decoded(unhex_string("020004 63616c6c 00 0000000000000000 06"));
    EXPECT_TRUE(cmd.command_object.is_undefined());
    EXPECT_EQ(classify_rtmp_command(cmd.name), RtmpCommandKind::kCall);
}

TEST(RtmpCommandDecode, BrokenBodies) {
    RtmpCommand cmd;
    EXPECT_EQ(decode_rtmp_command(message(kRtmpAmf0Command, ""), &cmd).code(), kErrorRtmpCommandNoName);
    EXPECT_EQ(decode_rtmp_command(message(kRtmpAmf0Command, unhex_string("05")), &cmd).code(), kErrorRtmpCommandNoName);
    EXPECT_EQ(decode_rtmp_command(message(kRtmpAmf0Command, unhex_string("020001 61 020001 62")), &cmd).code(),
              kErrorRtmpCommandBadTransactionId);
    EXPECT_EQ(decode_rtmp_command(message(kRtmpAmf0Command, unhex_string("020001 61 00 0000")), &cmd).code(),
              kErrorAmf0Truncated);
    EXPECT_EQ(decode_rtmp_command(message(kRtmpAmf0Command, unhex_string("020001 61 ff")), &cmd).code(),
              kErrorAmf0UnknownMarker);
}

TEST(RtmpCommandDecode, TruncatedUnderGuardPage) {
    std::vector<std::string> bodies;
    for (const char* hex : kAllBodies) bodies.push_back(unhex_string(hex));
    for (const std::string& body : bodies) {
        RtmpCommand full;
        ASSERT_TRUE(decode_rtmp_command_body(reinterpret_cast<const uint8_t*>(body.data()), body.size(), &full).ok());
        for (size_t n = 0; n <= body.size(); n++) {
            GuardedBytes g(body.substr(0, n));
            RtmpCommand cmd;
            Error err = decode_rtmp_command_body(g.data(), g.size(), &cmd);
            if (n == body.size()) {
                EXPECT_TRUE(err.ok());
            } else if (err.ok()) {
                // Only a prefix that ends between two values decodes: the same command, fewer values.
                EXPECT_EQ(cmd.name, full.name);
                EXPECT_LT(cmd.args.size() + (n > 0), full.args.size() + 2);
            }
            err.ignore();
        }
    }
    std::string body = unhex_string(kSetDataFrame);
    for (size_t n = 0; n <= body.size(); n++) {
        GuardedBytes g(body.substr(0, n));
        RtmpData data;
        Error err = decode_rtmp_data_body(g.data(), g.size(), &data);
        if (n == body.size()) {
            EXPECT_TRUE(err.ok());
        } else if (err.ok()) {
            EXPECT_EQ(data.name, "@setDataFrame");
            EXPECT_LT(data.values.size(), 2u);
        }
        err.ignore();
    }
}

TEST(RtmpCommandData, FfmpegSetDataFrameToStoredMetadata) {
    std::string body = unhex_string(kSetDataFrame);
    RtmpData data;
    ASSERT_TRUE(decode_rtmp_data(message(kRtmpAmf0Data, body), &data).ok());
    EXPECT_EQ(data.name, "@setDataFrame");
    ASSERT_EQ(data.values.size(), 2u);
    EXPECT_EQ(data.values[0].as_string(), "onMetaData");
    ASSERT_TRUE(data.values[1].is_ecma_array());
    EXPECT_EQ(data.values[1].get_number("width"), 320);
    EXPECT_EQ(data.values[1].get_number("height"), 240);
    EXPECT_EQ(data.values[1].get_string("encoder"), "Lavf59.27.100");
    EXPECT_EQ(bytes_of(encode_rtmp_data(data)), body);

    RtmpData stored;
    ASSERT_TRUE(rtmp_metadata_for_players(data, &stored));
    EXPECT_EQ(stored.name, "onMetaData");
    ASSERT_EQ(stored.values.size(), 1u);
    // What players get is the same body without the leading "@setDataFrame" string.
    EXPECT_EQ(bytes_of(encode_rtmp_data(stored)), body.substr(16));

    // Plain onMetaData passes through; anything else is not metadata.
    RtmpData again;
    ASSERT_TRUE(rtmp_metadata_for_players(stored, &again));
    EXPECT_EQ(bytes_of(encode_rtmp_data(again)), body.substr(16));
    RtmpData other{"@setDataFrame", {Amf0Value::string("onCuePoint")}};
    EXPECT_FALSE(rtmp_metadata_for_players(other, &again));
    EXPECT_FALSE(rtmp_metadata_for_players(RtmpData{"@setDataFrame", {}}, &again));
    EXPECT_FALSE(rtmp_metadata_for_players(build_sample_access(true, true), &again));

    // Type 15 has the format byte.
    ASSERT_TRUE(decode_rtmp_data(message(kRtmpAmf3Data, std::string(1, '\0') + body), &data).ok());
    EXPECT_EQ(data.name, "@setDataFrame");
    EXPECT_EQ(decode_rtmp_data(message(kRtmpAmf0Command, body), &data).code(), kErrorRtmpCommandWrongType);
    EXPECT_EQ(decode_rtmp_data(message(kRtmpAmf0Data, unhex_string("00 0000000000000000")), &data).code(),
              kErrorRtmpCommandNoName);
}

TEST(RtmpCommandRequests, ClientCommandsRoundTrip) {
    RtmpConnectRequest connect;
    connect.tc_url = "rtmp://h/live";
    connect.app = "live";
    connect.flash_ver = "LNX 9,0,124,2";
    connect.page_url = "http://h/p.html";
    connect.object_encoding = 3;
    connect.args.push_back(Amf0Value::string("user-arg"));
    RtmpConnectRequest c2;
    ASSERT_TRUE(parse_rtmp_request(through_wire(to_rtmp_command(connect)), &c2).ok());
    EXPECT_EQ(c2.tc_url, connect.tc_url);
    EXPECT_EQ(c2.app, "live");
    EXPECT_EQ(c2.flash_ver, connect.flash_ver);
    EXPECT_EQ(c2.page_url, connect.page_url);
    EXPECT_EQ(c2.swf_url, "");
    EXPECT_EQ(c2.object.get("swfUrl"), nullptr);
    EXPECT_EQ(c2.object_encoding, 3);
    ASSERT_EQ(c2.args.size(), 1u);
    EXPECT_EQ(c2.args[0].as_string(), "user-arg");

    RtmpPlayRequest play;
    play.transaction_id = 4;
    play.stream_name = "livestream?token=1";
    play.start = -1;
    play.duration = 30;
    play.reset = false;
    RtmpPlayRequest p2;
    ASSERT_TRUE(parse_rtmp_request(through_wire(to_rtmp_command(play)), &p2).ok());
    EXPECT_EQ(p2.transaction_id, 4);
    EXPECT_EQ(p2.stream_name, play.stream_name);
    EXPECT_EQ(p2.start, -1);
    EXPECT_EQ(p2.duration, 30);
    EXPECT_FALSE(p2.reset);

    RtmpPauseRequest pause;
    pause.pause = false;
    pause.time_ms = 1234;
    RtmpPauseRequest pa2;
    ASSERT_TRUE(parse_rtmp_request(through_wire(to_rtmp_command(pause)), &pa2).ok());
    EXPECT_FALSE(pa2.pause);
    EXPECT_EQ(pa2.time_ms, 1234);

    RtmpDeleteStreamRequest del;
    del.transaction_id = 6;
    del.stream_id = 1;
    RtmpDeleteStreamRequest d2;
    ASSERT_TRUE(parse_rtmp_request(through_wire(to_rtmp_command(del)), &d2).ok());
    EXPECT_EQ(d2.stream_id, 1);

    RtmpFCUnpublishRequest fcun;
    fcun.stream_name = "s";
    RtmpFCUnpublishRequest f2;
    ASSERT_TRUE(parse_rtmp_request(through_wire(to_rtmp_command(fcun)), &f2).ok());
    EXPECT_EQ(f2.stream_name, "s");

    RtmpGetStreamLengthRequest len;
    len.stream_name = "s";
    RtmpGetStreamLengthRequest l2;
    ASSERT_TRUE(parse_rtmp_request(through_wire(to_rtmp_command(len)), &l2).ok());
    EXPECT_EQ(l2.stream_name, "s");

    RtmpCloseStreamRequest close;
    RtmpCloseStreamRequest cl2;
    ASSERT_TRUE(parse_rtmp_request(through_wire(to_rtmp_command(close)), &cl2).ok());
    RtmpCheckBwRequest bw;
    bw.transaction_id = 9;
    RtmpCheckBwRequest b2;
    ASSERT_TRUE(parse_rtmp_request(through_wire(to_rtmp_command(bw)), &b2).ok());
    EXPECT_EQ(b2.transaction_id, 9);
    EXPECT_EQ(classify_rtmp_command("_checkbw"), RtmpCommandKind::kCheckBw);
    EXPECT_EQ(classify_rtmp_command("closeStream"), RtmpCommandKind::kCloseStream);
    EXPECT_EQ(classify_rtmp_command("FCUnpublish"), RtmpCommandKind::kFCUnpublish);
}

TEST(RtmpCommandRequests, DefaultsAndErrors) {
    // play with only a stream name: Flash's defaults.
    RtmpCommand cmd = decoded(unhex_string("020004 706c6179 00 0000000000000000 05 020001 73"));
    RtmpPlayRequest play;
    ASSERT_TRUE(parse_rtmp_request(cmd, &play).ok());
    EXPECT_EQ(play.start, -2);
    EXPECT_EQ(play.duration, -1);
    EXPECT_TRUE(play.reset);
    // reset as a number.
    cmd.args = {Amf0Value::string("s"), Amf0Value::number(0), Amf0Value::number(-1), Amf0Value::number(0)};
    ASSERT_TRUE(parse_rtmp_request(cmd, &play).ok());
    EXPECT_FALSE(play.reset);
    EXPECT_EQ(play.start, 0);

    cmd.args.clear();
    EXPECT_EQ(parse_rtmp_request(cmd, &play).code(), kErrorRtmpCommandMissingArg);
    cmd.args = {Amf0Value::number(1)};
    EXPECT_EQ(parse_rtmp_request(cmd, &play).code(), kErrorRtmpCommandBadArg);

    RtmpPublishRequest publish;
    EXPECT_EQ(parse_rtmp_request(cmd, &publish).code(), kErrorRtmpCommandUnexpected);
    cmd.name = "publish";
    cmd.args = {Amf0Value::string("s")};
    ASSERT_TRUE(parse_rtmp_request(cmd, &publish).ok());
    EXPECT_EQ(publish.type, "live");
    cmd.args.push_back(Amf0Value::string("record"));
    ASSERT_TRUE(parse_rtmp_request(cmd, &publish).ok());
    EXPECT_EQ(publish.type, "record");
    cmd.args.clear();
    EXPECT_EQ(parse_rtmp_request(cmd, &publish).code(), kErrorRtmpCommandMissingArg);

    cmd.name = "pause";
    RtmpPauseRequest pause;
    EXPECT_EQ(parse_rtmp_request(cmd, &pause).code(), kErrorRtmpCommandMissingArg);
    cmd.args = {Amf0Value::number(1)};
    EXPECT_EQ(parse_rtmp_request(cmd, &pause).code(), kErrorRtmpCommandBadArg);

    cmd.name = "deleteStream";
    cmd.args.clear();
    RtmpDeleteStreamRequest del;
    EXPECT_EQ(parse_rtmp_request(cmd, &del).code(), kErrorRtmpCommandMissingArg);
    cmd.args = {Amf0Value::string("1")};
    EXPECT_EQ(parse_rtmp_request(cmd, &del).code(), kErrorRtmpCommandBadArg);

    // Advisory commands tolerate a missing name.
    cmd.name = "FCPublish";
    cmd.args.clear();
    RtmpFCPublishRequest fc;
    ASSERT_TRUE(parse_rtmp_request(cmd, &fc).ok());
    EXPECT_EQ(fc.stream_name, "");

    // connect needs an object with a tcUrl.
    cmd.name = "connect";
    cmd.command_object = Amf0Value::null();
    RtmpConnectRequest connect;
    EXPECT_EQ(parse_rtmp_request(cmd, &connect).code(), kErrorRtmpCommandMissingArg);
    cmd.command_object = Amf0Value::object().set("app", Amf0Value::string("live"));
    EXPECT_EQ(parse_rtmp_request(cmd, &connect).code(), kErrorRtmpCommandMissingArg);
    cmd.command_object.set("tcUrl", Amf0Value::number(1));
    EXPECT_EQ(parse_rtmp_request(cmd, &connect).code(), kErrorRtmpCommandMissingArg);
    cmd.command_object.set("tcUrl", Amf0Value::string("rtmp://h/live"));
    ASSERT_TRUE(parse_rtmp_request(cmd, &connect).ok());
    EXPECT_EQ(connect.app, "live");
}

TEST(RtmpCommandBuilders, ConnectResult) {
    Amf0Value data = Amf0Value::ecma_array()
                         .set("srs_server", Amf0Value::string("OurServer/1.0"))
                         .set("srs_version", Amf0Value::string("1.0.0"));
    RtmpCommand res = through_wire(build_connect_result(1, 0, data));
    EXPECT_EQ(res.name, "_result");
    EXPECT_EQ(res.transaction_id, 1);
    EXPECT_EQ(res.command_object.get_string("fmsVer"), "FMS/3,5,3,888");
    EXPECT_EQ(res.command_object.get_number("capabilities"), 127);
    EXPECT_EQ(res.command_object.get_number("mode"), 1);
    ASSERT_EQ(res.args.size(), 1u);
    const Amf0Value& info = res.args[0];
    EXPECT_EQ(info.get_string("level"), "status");
    EXPECT_EQ(info.get_string("code"), "NetConnection.Connect.Success");
    EXPECT_EQ(info.get_string("description"), "Connection succeeded");
    EXPECT_EQ(info.get_number("objectEncoding", -1), 0);
    ASSERT_NE(info.get("data"), nullptr);
    EXPECT_TRUE(info.get("data")->is_ecma_array());
    EXPECT_EQ(info.get("data")->get_string("srs_server"), "OurServer/1.0");
    RtmpStatus status;
    ASSERT_TRUE(parse_rtmp_status(res, &status).ok());
    EXPECT_EQ(status.code, kRtmpStatusConnectSuccess);

    // No data when the caller has none.
    res = build_connect_result(1, 3, Amf0Value::null(), "ok");
    EXPECT_EQ(res.args[0].get("data"), nullptr);
    EXPECT_EQ(res.args[0].get_number("objectEncoding"), 3);

    res = through_wire(build_connect_rejected(1, "denied by hook"));
    EXPECT_EQ(res.name, "_error");
    ASSERT_TRUE(parse_rtmp_status(res, &status).ok());
    EXPECT_EQ(status.level, "error");
    EXPECT_EQ(status.code, "NetConnection.Connect.Rejected");
    EXPECT_EQ(status.description, "denied by hook");
}

TEST(RtmpCommandBuilders, StreamAnswers) {
    RtmpCommand res = through_wire(build_create_stream_result(4, 1));
    EXPECT_EQ(res.name, "_result");
    EXPECT_EQ(res.transaction_id, 4);
    EXPECT_TRUE(res.command_object.is_null());
    double id = 0;
    ASSERT_TRUE(parse_create_stream_result(res, &id).ok());
    EXPECT_EQ(id, 1);
    EXPECT_EQ(parse_create_stream_result(build_simple_result(2), &id).code(), kErrorRtmpCommandMissingArg);
    EXPECT_EQ(parse_create_stream_result(build_on_bw_done(), &id).code(), kErrorRtmpCommandUnexpected);
    // [_result, 2, null, undefined], byte for byte.
    EXPECT_EQ(bytes_of(encode_rtmp_command(build_simple_result(2))),
              unhex_string("020007 5f726573756c74 00 4000000000000000 05 06"));
    // [onBWDone, 0, null].
    EXPECT_EQ(bytes_of(encode_rtmp_command(build_on_bw_done())),
              unhex_string("020008 6f6e4257446f6e65 00 0000000000000000 05"));

    RtmpStatus s;
    s.level = "error";
    s.code = "NetStream.Publish.Denied";
    s.description = "no";
    res = through_wire(build_error(7, s));
    EXPECT_EQ(res.name, "_error");
    EXPECT_EQ(res.transaction_id, 7);
    EXPECT_EQ(res.args[0].get_string("code"), "NetStream.Publish.Denied");
    EXPECT_EQ(res.args[0].get("details"), nullptr);
}

TEST(RtmpCommandBuilders, OnStatusEvents) {
    struct Case {
        RtmpCommand cmd;
        const char* level;
        const char* code;
    } cases[] = {
        {build_publish_start("s", "cid1"), "status", "NetStream.Publish.Start"},
        {build_publish_bad_name("s", "cid1"), "error", "NetStream.Publish.BadName"},
        {build_unpublish_success("s", "cid1"), "status", "NetStream.Unpublish.Success"},
        {build_play_reset("s", "cid1"), "status", "NetStream.Play.Reset"},
        {build_play_start("s", "cid1"), "status", "NetStream.Play.Start"},
        {build_play_stop("s", "cid1"), "status", "NetStream.Play.Stop"},
        {build_play_unpublish_notify("s", "cid1"), "status", "NetStream.Play.UnpublishNotify"},
        {build_play_publish_notify("s", "cid1"), "status", "NetStream.Play.PublishNotify"},
        {build_pause_notify("s", "cid1"), "status", "NetStream.Pause.Notify"},
        {build_unpause_notify("s", "cid1"), "status", "NetStream.Unpause.Notify"},
    };
    for (const Case& c : cases) {
        RtmpCommand cmd = through_wire(c.cmd);
        EXPECT_EQ(cmd.name, "onStatus");
        EXPECT_EQ(cmd.transaction_id, 0);
        EXPECT_TRUE(cmd.command_object.is_null());
        RtmpStatus status;
        ASSERT_TRUE(parse_rtmp_status(cmd, &status).ok());
        EXPECT_EQ(status.level, c.level);
        EXPECT_EQ(status.code, c.code);
        EXPECT_EQ(status.details, "s");
        EXPECT_EQ(status.client_id, "cid1");
        EXPECT_FALSE(status.description.empty());
    }
    RtmpCommand start = build_publish_start("live", "x", "custom");
    EXPECT_EQ(start.args[0].get_string("description"), "custom");
    // Key order as clients log it: level, code, description, details, clientid.
    const auto& props = start.args[0].properties();
    ASSERT_EQ(props.size(), 5u);
    EXPECT_EQ(props[0].key, "level");
    EXPECT_EQ(props[4].key, "clientid");

    RtmpCommand fc = through_wire(build_on_fc_publish("livestream"));
    EXPECT_EQ(fc.name, "onFCPublish");
    EXPECT_EQ(fc.args[0].get_string("code"), "NetStream.Publish.Start");
    EXPECT_EQ(fc.args[0].get_string("description"), "livestream");
    fc = through_wire(build_on_fc_unpublish("livestream"));
    EXPECT_EQ(fc.name, "onFCUnpublish");
    EXPECT_EQ(fc.args[0].get_string("code"), "NetStream.Unpublish.Success");
    RtmpStatus status;
    EXPECT_EQ(parse_rtmp_status(build_on_bw_done(), &status).code(), kErrorRtmpCommandMissingArg);
}

TEST(RtmpCommandBuilders, DataMessages) {
    RtmpMessage msg = make_rtmp_data_message(build_data_start(), 1);
    EXPECT_EQ(msg.type, kRtmpAmf0Data);
    EXPECT_EQ(msg.stream_id, 1u);
    EXPECT_EQ(msg.cs_id, uint32_t(kRtmpCidOverStream));
    RtmpData data;
    ASSERT_TRUE(decode_rtmp_data(msg, &data).ok());
    EXPECT_EQ(data.name, "onStatus");
    ASSERT_EQ(data.values.size(), 1u);
    EXPECT_EQ(data.values[0].get_string("code"), "NetStream.Data.Start");

    // |RtmpSampleAccess true false, byte for byte.
    EXPECT_EQ(bytes_of(encode_rtmp_data(build_sample_access(true, false))),
              unhex_string("020011 7c52746d7053616d706c65416363657373 0101 0100"));

    RtmpMessage cmd = make_rtmp_command_message(build_on_bw_done(), 0);
    EXPECT_EQ(cmd.type, kRtmpAmf0Command);
    EXPECT_EQ(cmd.cs_id, uint32_t(kRtmpCidOverConnection));
    EXPECT_EQ(make_rtmp_command_message(build_play_start("s", ""), 1).cs_id, uint32_t(kRtmpCidOverStream));
}
