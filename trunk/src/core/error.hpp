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
    // Protocol/codec ranges used by later layers.
    kErrorRtmpBase = 2000,
    kErrorAppBase = 3000,
    kErrorHttpBase = 4000,
    kErrorRtcBase = 5000,
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
