// Errors as values.
//
// A function that can fail returns srs::Error. A success is the empty value
// (no allocation); a failure carries a numeric code, a message and the chain of
// call sites it was wrapped through, each with file:line and the context id of
// the coroutine that wrapped it. Errors are move-only and [[nodiscard]], so a
// caller cannot ignore one without saying so (err.ignore()).
//
//   if (Error err = decode(buf); !err.ok())
//       return SRS_WRAP(err, "decode chunk from %s", peer);
//
// The top of the stack logs err.describe() once.
#pragma once

#include <string>

namespace srs {

// Error codes. Ranges follow SRS's so operators can compare with SRS logs:
// 1000s system, 2000s RTMP, 3000s application, 4000s HTTP, 5000s RTC.
enum ErrorCode : int {
    kSuccess = 0,
    // System.
    kErrorSystemIo = 1000,
    kErrorSocketCreate = 1001,
    kErrorSocketSetReuse = 1002,
    kErrorSocketBind = 1003,
    kErrorSocketListen = 1004,
    kErrorSocketClosed = 1005,
    kErrorSocketRead = 1006,
    kErrorSocketWrite = 1007,
    kErrorSocketTimeout = 1008,
    kErrorSocketConnect = 1009,
    kErrorSocketAccept = 1010,
    kErrorThreadStart = 1011,
    kErrorThreadInterrupted = 1012,
    kErrorThreadTerminated = 1013,
    kErrorPidFile = 1014,
    kErrorDaemon = 1015,
    kErrorFileOpen = 1016,
    kErrorFileRead = 1017,
    kErrorFileWrite = 1018,
    kErrorSignal = 1019,
    kErrorResourceLimit = 1020,
    kErrorBufferOverflow = 1021,
    kErrorNotSupported = 1022,
    // Config.
    kErrorConfigInvalid = 1023,
    kErrorConfigDirective = 1024,
    kErrorConfigBlockStart = 1025,
    kErrorConfigBlockEnd = 1026,
    kErrorConfigEof = 1027,
    kErrorConfigInclude = 1028,
    kErrorConfigEnv = 1029,
    // Host names (io/host_resolver).
    kErrorDnsResolve = 1030,  // the name does not resolve (or the lookup failed)
    kErrorDnsTimeout = 1031,  // no answer within the caller's timeout
    // vhost security (allow/deny by client address): SRS's numbers, which its
    // JSON API answers with.
    kErrorSecurityDeny = 1053,   // a deny rule matched
    kErrorSecurityAllow = 1054,  // allow rules exist (or no rule at all) and none matched
    // SRS's ERROR_EXCEED_CONNECTIONS: a bound on clients is full (max_connections,
    // or the WebRTC pending sessions' rtc_server.pending_sessions[_per_ip]). HTTP 503.
    kErrorExceedConnections = 1074,
    // Protocol/codec ranges used by later layers.
    kErrorRtmpBase = 2000,
    // AMF0 and RTMP commands
    kErrorAmf0Truncated = 2001,            // the input ends inside a value
    kErrorAmf0UnknownMarker = 2002,        // a marker we do not decode (4, 13..17, >17)
    kErrorAmf0TooDeep = 2003,              // nesting past kAmf0MaxDepth
    kErrorAmf0BadReference = 2004,         // reference index out of range or to an unfinished value
    kErrorAmf0LengthTooLarge = 2005,       // a length or count larger than the bytes left
    kErrorAmf0MissingObjectEnd = 2006,     // an object/ECMA array not closed by 00 00 09
    kErrorAmf0UnexpectedObjectEnd = 2007,  // an object-end marker where a value is expected
    kErrorAmf0ReferenceBudget = 2008,      // references expand to more than the budget
    kErrorAmf0TooManyValues = 2009,        // more values than kAmf0MaxValues in one decode
    kErrorRtmpCommandWrongType = 2010,     // not a command/data message (type 20/17/18/15)
    kErrorRtmpCommandNoName = 2011,        // first value is not a string
    kErrorRtmpCommandBadTransactionId = 2012,
    kErrorRtmpCommandMissingArg = 2013,    // a required argument is absent
    kErrorRtmpCommandBadArg = 2014,        // an argument has the wrong AMF0 type
    kErrorRtmpCommandUnexpected = 2015,    // parsed as one command but named another
    kErrorRtmpAmf3NotSupported = 2016,     // AMF3 message whose body is not AMF0
    kErrorRtmpUrlInvalid = 2020,           // tcUrl/stream do not form an RTMP URL
    // RTMP handshake (protocol/rtmp_handshake).
    kErrorRtmpHandshakeVersion = 2030,  // C0/S0 is not 3
    kErrorRtmpHandshakeCrypto = 2031,   // HMAC-SHA256 failed (OpenSSL)
    kErrorRtmpHandshakeState = 2032,    // fed out of order, or after a failure
    // RTMP chunk stream and protocol control (protocol/rtmp_chunk, protocol/rtmp_protocol).
    kErrorRtmpChunkMessageTooLarge = 2040,   // message length above the configured maximum
    kErrorRtmpChunkNoPreviousHeader = 2041,  // type 2/3 first chunk on a chunk stream
    kErrorRtmpChunkLengthChanged = 2042,     // a header changes the length mid-message
    kErrorRtmpChunkTooManyStreams = 2043,    // more chunk streams than allowed
    kErrorRtmpChunkPendingTooLarge = 2044,   // partial messages hold too many bytes in total
    kErrorRtmpChunkSizeInvalid = 2045,       // Set Chunk Size outside 128..65536 or top bit set
    kErrorRtmpControlMalformed = 2046,       // a protocol control message too short
    kErrorRtmpUserControlMalformed = 2047,   // a user control event too short for its type
    kErrorRtmpAggregateMalformed = 2048,     // aggregate sub-message truncated or of a bad type
    kErrorRtmpMessageTypeUnknown = 2049,     // a message type RTMP does not define
    // RTMP client.
    kErrorRtmpClientRejected = 2090,  // the server answered _error or an onStatus of level "error"
    kErrorRtmpClientState = 2091,     // a call out of order (play before connect, publish twice...)
    kErrorRtmpClientNoDns = 2092,     // the URL's host is a name, not an IP literal
    kErrorAppBase = 3000,
    kErrorStreamBusy = 3001,       // a second publisher of a live stream
    kErrorVhostDisabled = 3002,    // vhost { enabled off; }
    kErrorStreamNameEmpty = 3003,  // publish/play without a stream name
    kErrorReferDenied = 3004,      // vhost refer: the pageUrl's host is on no listed domain (SRS: 2015 RtmpAccessDenied)
    // Edge (app/edge): pulling from and pushing to origins.
    kErrorEdgeNoOrigin = 3010,       // the locator named no origin for the stream
    kErrorEdgeOriginInvalid = 3011,  // a cluster.origin entry is not HOST[:PORT] with a numeric host
    kErrorEdgeRedirectLoop = 3012,   // an origin redirected (RTMP 302) more than the hop limit
    kErrorEdgeUpstreamIdle = 3013,   // the origin sent no media for too long
    // Media codecs and FLV (kernel/media_codec*, kernel/flv).
    kErrorVideoPacket = 3100,      // FLV/RTMP video tag body malformed
    kErrorAudioPacket = 3101,      // FLV/RTMP audio tag body malformed
    kErrorAvcConfig = 3102,        // AVCDecoderConfigurationRecord
    kErrorAvcSps = 3103,           // H.264 sequence parameter set
    kErrorHevcConfig = 3104,       // HEVCDecoderConfigurationRecord
    kErrorHevcSps = 3105,          // H.265 sequence parameter set
    kErrorAv1Config = 3106,        // AV1CodecConfigurationRecord / sequence header OBU
    kErrorAacConfig = 3107,        // AudioSpecificConfig
    kErrorFlvHeader = 3120,        // FLV file header
    kErrorFlvTagType = 3121,       // FLV tag type or flags
    kErrorFlvTagSize = 3122,       // FLV tag data size
    // MPEG-TS (kernel/ts), 3140s.
    kErrorTsMux = 3140,    // a frame the muxer cannot carry (no config, bad NALU lengths, size, codec)
    kErrorTsDemux = 3141,  // TS bytes that break ISO 13818-1 (sync byte, section, PES header, sizes)
    // MP4 muxer (kernel/mp4), 3150s.
    kErrorMp4Box = 3150,     // box parser: a size below its header or past its parent, a truncated header
    kErrorMp4Track = 3151,   // a track config the muxer cannot write (codec, record, sample rate)
    kErrorMp4Sample = 3152,  // a sample for no track, with a timestamp going back, or too large
    kErrorMp4State = 3153,   // a call out of order (samples before the init segment, after close)
    // Redis client (protocol/redis) and the stream registry (app/registry), 3200s.
    kErrorRedisProtocol = 3200,     // the reply bytes break RESP (hiredis's reader said why)
    kErrorRedisReplyTooLarge = 3201,  // a reply over the decoder's byte or element limit
    kErrorRedisReplyError = 3202,   // Redis answered -ERR (or a reply of an unexpected type)
    kErrorRedisUnavailable = 3203,  // no connection to Redis (down, refused, waiting to retry)
    kErrorRegistryConfig = 3204,    // stream_registry: a redis URL or advertise address we cannot use
    kErrorHttpBase = 4000,
    // HTTP/1.1 request parser (protocol/http_request); http_status_for() maps each to a status.
    kErrorHttpBadMethod = 4001,              // 400: method is not a token (or longer than 32)
    kErrorHttpBadRequestLine = 4002,         // 400: request line not "METHOD SP target SP version"
    kErrorHttpRequestLineTooLong = 4003,     // 414: request line over HttpLimits::max_request_line
    kErrorHttpBadVersion = 4004,             // 400: version not "HTTP/" DIGIT "." DIGIT
    kErrorHttpVersionNotSupported = 4005,    // 505: a well-formed version other than 1.0/1.1
    kErrorHttpBadTarget = 4006,              // 400: request-target not origin- or absolute-form
    kErrorHttpBadPath = 4007,                // 400: bad %-escape, encoded NUL/control, escapes root
    kErrorHttpBadHeader = 4008,              // 400: field line malformed or with control bytes
    kErrorHttpHeadersTooLarge = 4009,        // 431: header (+trailer) bytes over max_header_bytes
    kErrorHttpTooManyHeaders = 4010,         // 431: more field lines than max_headers
    kErrorHttpBadHost = 4011,                // 400: HTTP/1.1 without Host, or several Host lines
    kErrorHttpBadContentLength = 4012,       // 400: Content-Length not a decimal number
    kErrorHttpSmuggling = 4013,              // 400: Content-Length with chunked, or two lengths
    kErrorHttpBadTransferEncoding = 4014,    // 400: chunked not last/repeated, or TE in HTTP/1.0
    kErrorHttpUnsupportedTransferEncoding = 4015,  // 501: a transfer coding other than chunked
    kErrorHttpBodyTooLarge = 4016,           // 413: body over HttpLimits::max_body
    kErrorHttpBadChunkSize = 4017,           // 400: chunk-size line malformed or too long
    kErrorHttpBadChunkEnd = 4018,            // 400: chunk data not followed by CRLF
    kErrorHttpBadLineEnding = 4019,          // 400: CR not followed by LF
    kErrorHttpParserState = 4020,            // 500: feed() while a request waits for take_request()
    // HTTP/1.1 client (protocol/http_response_parser, app/http_client), 4100s.
    kErrorHttpClientBadUrl = 4100,           // not http[s]://host[:port]/path, or a name with no resolver
    kErrorHttpClientBadStatusLine = 4101,    // response status line not "HTTP/1.x DDD reason"
    kErrorHttpClientBadHeader = 4102,        // a response field line malformed, or over the limits
    kErrorHttpClientBadFraming = 4103,       // bad Content-Length / chunk size / chunk end
    kErrorHttpClientTruncated = 4104,        // the peer closed before the response was complete
    kErrorHttpClientBodyTooLarge = 4105,     // the body is over HttpClientOptions::max_body
    kErrorHttpClientTimeout = 4106,          // the exchange's total deadline passed
    kErrorHttpClientStatus = 4107,           // a caller wanted a 2xx and got another status
    // TLS client (protocol/tls, https:// URLs).
    kErrorTlsInit = 4108,                    // the TLS context or session could not be made (bad ca_file, ...)
    kErrorTlsHandshake = 4109,               // the handshake failed (alert, protocol error, peer closed)
    kErrorTlsVerify = 4110,                  // the peer's certificate failed verification (chain or name)
    kErrorTlsRecord = 4111,                  // a record after the handshake failed to decrypt or was an alert
    kErrorRtcBase = 5000,
    // The WebRTC server and its signalling (app/rtc); the numbers SRS's JSON API answers with.
    kErrorRtcApiBody = 5019,        // the /rtc/v1/ JSON body is not an object with a usable sdp and streamurl
    kErrorRtcSourceBusy = 5020,     // publish: the stream already has a publisher (any protocol)
    kErrorRtcDisabled = 5021,       // rtc_server or vhost.rtc is off
    kErrorRtcNoSession = 5022,      // DELETE of a session that does not exist or whose token differs
    kErrorRtcInvalidParams = 5023,  // a query knob with an unusable value (codec=, eip=)
    kErrorRtcSessionClosed = 5040,  // a session ended on request: DELETE, kick, RTCP BYE, shutdown
    // STUN for ICE-lite (kernel/stun). 5100s, so other RTC pieces keep 5001..5099.
    kErrorStunTruncated = 5100,           // shorter than the 20-byte header
    kErrorStunNotStun = 5101,             // the two top bits of the type are not 0
    kErrorStunBadCookie = 5102,           // magic cookie is not 0x2112A442
    kErrorStunBadLength = 5103,           // length not a multiple of 4, or header + length != datagram
    kErrorStunAttributeOverrun = 5104,    // an attribute header or value runs past the message
    kErrorStunBadAttribute = 5105,        // a known attribute with a bad length or value
    kErrorStunIntegrityNotLast = 5106,    // an attribute other than FINGERPRINT after MESSAGE-INTEGRITY
    kErrorStunFingerprintNotLast = 5107,  // an attribute after FINGERPRINT
    kErrorStunNoIntegrity = 5108,         // verify asked for, no MESSAGE-INTEGRITY present
    kErrorStunIntegrityMismatch = 5109,   // HMAC-SHA1 differs (wrong password or altered bytes)
    kErrorStunNoFingerprint = 5110,       // verify asked for, no FINGERPRINT present
    kErrorStunFingerprintMismatch = 5111, // CRC-32 differs
    kErrorStunBufferTooSmall = 5112,      // encode: the caller's buffer cannot hold the message
    kErrorStunBadArgument = 5113,         // encode: an address family or username the wire cannot carry
    kErrorStunCrypto = 5114,              // HMAC-SHA1 failed inside OpenSSL
    // SDP offer/answer (kernel/sdp), 5300s; the server answers 400 with the message.
    kErrorSdpTooLarge = 5300,     // over kSdpMaxBytes, kSdpMaxLines or kSdpMaxMedia
    kErrorSdpSyntax = 5301,       // a line that breaks RFC 8866's grammar or a known attribute's
    kErrorSdpMissingLine = 5302,  // v=, o=, s= or t= absent or out of order
    kErrorSdpIce = 5303,          // no ice-ufrag/ice-pwd for a media section
    kErrorSdpFingerprint = 5304,  // no fingerprint, or one that is not a known hash in hex
    kErrorSdpSetup = 5305,        // a=setup other than actpass/active/passive
    kErrorSdpNoMedia = 5306,      // no m= section the server can use
    kErrorSdpNoCodec = 5307,      // an audio/video section without a codec the server takes
    kErrorSdpAnswer = 5308,       // the answer builder was given unusable inputs
    // RTP (kernel/rtp/rtp), 5200s: RFC 3550 header, RFC 8285 header extensions.
    kErrorRtpTooShort = 5200,         // fewer bytes than the fixed header, CSRCs or extension header
    kErrorRtpVersion = 5201,          // version is not 2
    kErrorRtpExtension = 5202,        // extension length or an element runs past its end
    kErrorRtpPadding = 5203,          // padding count 0 or larger than what follows the header
    kErrorRtpTooManyExtensions = 5204,  // more elements than kRtpMaxExtensions
    kErrorRtpWriteInvalid = 5205,     // writer: an extension id/size the chosen form cannot carry
    kErrorRtpBufferTooSmall = 5206,   // writer: the caller's buffer is too small
    // RTCP (kernel/rtp/rtcp): RFC 3550, 4585, 5104, 3611, transport-wide CC.
    kErrorRtcpTooShort = 5220,        // fewer than 4 bytes, or a packet shorter than its type needs
    kErrorRtcpVersion = 5221,         // version is not 2
    kErrorRtcpLength = 5222,          // the length field runs past the datagram
    kErrorRtcpPadding = 5223,         // padding count 0 or larger than the packet body
    kErrorRtcpCount = 5224,           // the report/source count does not fit the length
    kErrorRtcpSdes = 5225,            // an SDES chunk or item runs past its packet
    kErrorRtcpBye = 5226,             // BYE reason runs past its packet
    kErrorRtcpFeedback = 5227,        // a feedback message (NACK, PLI, FIR, REMB) malformed
    kErrorRtcpTwcc = 5228,            // a transport-cc feedback malformed
    kErrorRtcpXr = 5229,              // an XR block runs past its packet or is malformed
    kErrorRtcpBuild = 5230,           // builder: input the packet cannot carry
    // RTP payload formats (kernel/rtp/rtp_h264, rtp_h265, rtp_av1), 5240s: H.264/H.265/AV1 in and out of RTP.
    kErrorRtpPayloadConfig = 5240,    // a decoder configuration record (avcC/hvcC/av1C) truncated or invalid
    kErrorRtpPayloadNalu = 5241,      // an access unit: a NALU length past the end, a zero-length NALU, a bad OBU
    kErrorRtpPayloadPacket = 5242,    // depacketizer: a bad STAP-A length, NAL type 0/30/31 or not of mode 1, short FU
    kErrorRtpPayloadFrameSize = 5243, // depacketizer: a frame over the size bound (dropped)
    kErrorRtpPayloadBuild = 5244,     // h264_build_avcc_record: an SPS/PPS that is empty, of the wrong type or too long
    // DTLS 1.2 for WebRTC (protocol/rtc/dtls), 5400s.
    kErrorDtlsInit = 5400,         // OpenSSL could not make the key, certificate, context or session
    kErrorDtlsHandshake = 5401,    // the handshake failed (alert sent or received, bad record)
    kErrorDtlsFingerprint = 5402,  // the peer certificate's SHA-256 differs from the SDP fingerprint
    kErrorDtlsTimeout = 5403,      // no answer after the last retransmission
    kErrorDtlsState = 5404,        // called in a state that does not take it (not started, failed, closed)
    kErrorDtlsSrtp = 5405,         // no SRTP profile negotiated, or keying material export failed
    // SRTP/SRTCP contexts (protocol/rtc/srtp), 5500s; libsrtp's status name is in the message.
    kErrorSrtpInit = 5500,            // srtp_init() failed
    kErrorSrtpProfile = 5501,         // a DTLS-SRTP protection profile the server does not use
    kErrorSrtpKeyLength = 5502,       // key or salt length does not match the profile
    kErrorSrtpState = 5503,           // used before initialize(), or initialized twice
    kErrorSrtpCreate = 5504,          // srtp_create() failed
    kErrorSrtpBufferTooSmall = 5505,  // protect: no room for the trailer before cap
    kErrorSrtpProtect = 5506,         // srtp_protect / srtp_protect_rtcp failed
    kErrorSrtpUnprotect = 5507,       // srtp_unprotect / _rtcp failed: altered, replayed, too short
    // The WebRTC peer (protocol/rtc/rtc_peer), 5600s: one datagram dropped, or why the session ended.
    kErrorRtcPeerState = 5600,        // called in a state that does not take it (media before connected, after close)
    kErrorRtcPeerOptions = 5601,      // options missing a certificate, ufrag, password, fingerprint or candidate
    kErrorRtcPeerAddress = 5602,      // DTLS/RTP/RTCP from an address other than the selected one
    kErrorRtcPeerDemux = 5603,        // empty datagram, or a first byte in no RFC 7983 range we take
    kErrorRtcPeerStun = 5604,         // a STUN message we do not take (class, method, unknown required attribute)
    kErrorRtcPeerStunUsername = 5605, // USERNAME missing or not "<ours>:<theirs>"
    kErrorRtcPeerStunTransaction = 5606, // a response to no outstanding check
    kErrorRtcPeerStunError = 5607,    // a binding error response to one of our checks
    kErrorRtcPeerStunTimeout = 5608,  // no verified binding request (server) or response (client) for stun_timeout
    kErrorRtcPeerRandom = 5609,       // RAND_bytes failed
    kErrorRtcPeerClosedByPeer = 5610, // DTLS close_notify received
    kErrorRtcPeerDtls = 5611,         // DTLS failed without an error of its own (the 5400s error is the cause otherwise)
    // WebRTC transport: the batched UDP socket (io/udp_batch) and RFC 4571 framing over TCP
    // (protocol/rtc/rfc4571), 5750s.
    kErrorRfc4571Frame = 5750,     // a frame length of 0, over the decoder's max_frame, or over 65535 to write
    kErrorUdpSocketOption = 5751,  // setsockopt on the UDP socket failed (PKTINFO, buffer sizes, v6only)
    // Audio transcoding (kernel/codec/audio_transcoder), 5800s; libav's error string is in the message.
    kErrorAudioTranscoderOptions = 5800,  // a codec pair, rate, channel count or bitrate the transcoder does not take
    kErrorAudioTranscoderConfig = 5801,   // the AAC AudioSpecificConfig is missing or not one the decoder takes
    kErrorAudioTranscoderCodec = 5802,    // libavcodec has no such decoder/encoder, or could not open it
    kErrorAudioTranscoderResample = 5803, // libswresample could not be set up or failed to convert
    kErrorAudioTranscoderDecode = 5804,   // the decoder rejected a frame (empty, corrupt, wrong codec)
    kErrorAudioTranscoderEncode = 5805,   // the encoder failed on a frame
    kErrorAudioTranscoderMemory = 5806,   // an AVFrame, AVPacket, sample buffer or FIFO could not be allocated
};

class [[nodiscard]] Error {
  public:
    // Success.
    Error() noexcept = default;
    Error(Error&& other) noexcept;
    Error& operator=(Error&& other) noexcept;
    Error(const Error&) = delete;
    Error& operator=(const Error&) = delete;
    ~Error();

    // Use SRS_ERR / SRS_WRAP, which fill in the call site.
    static Error make(int code, const char* file, int line, const char* fmt, ...)
        __attribute__((format(printf, 4, 5)));
    static Error wrap(Error&& cause, const char* file, int line, const char* fmt, ...)
        __attribute__((format(printf, 4, 5)));

    bool ok() const { return !data_; }
    bool failed() const { return data_ != nullptr; }
    // The code of the innermost error (the one that was created, not wrapped).
    int code() const;
    // The message given where the error was created.
    std::string message() const;
    // Every frame, outermost first: "code=1008 ... : read header\n  at file:line [cid] ...".
    std::string describe() const;
    // One line, outermost first, frames joined by " : " (for API answers).
    std::string summary() const;
    // Consume the error on purpose (a decision, not an accident).
    void ignore();
    // Copy (for handing the same failure to several places).
    Error copy() const;

  private:
    struct Frame;
    struct Data;
    Data* data_ = nullptr;  // null: success
};

// The context id of the running coroutine, supplied by a higher layer (io).
// Core cannot see the runtime, so it asks through this hook; without one it is "".
using ContextIdFn = const char* (*)();
void set_context_id_provider(ContextIdFn fn);
const char* current_context_id();

}  // namespace srs

#define SRS_ERR(code, ...) ::srs::Error::make((code), __FILE__, __LINE__, __VA_ARGS__)
#define SRS_WRAP(err, ...) ::srs::Error::wrap(std::move(err), __FILE__, __LINE__, __VA_ARGS__)
