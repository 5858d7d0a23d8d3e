#include "core/error.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

namespace srs {

namespace {
ContextIdFn g_context_id_fn = nullptr;

std::string vformat(const char* fmt, va_list ap) {
    char stack[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(stack, sizeof(stack), fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return fmt;
    }
    if (static_cast<size_t>(n) < sizeof(stack)) {
        va_end(ap2);
        return std::string(stack, n);
    }
    std::string out(n, '\0');
    vsnprintf(&out[0], n + 1, fmt, ap2);
    va_end(ap2);
    return out;
}

const char* base_name(const char* path) {
    const char* slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}
}  // namespace

void set_context_id_provider(ContextIdFn fn) { g_context_id_fn = fn; }

const char* current_context_id() {
    const char* cid = g_context_id_fn ? g_context_id_fn() : nullptr;
    return cid ? cid : "";
}

struct Error::Frame {
    std::string file;
    int line;
    std::string cid;
    std::string message;
};

struct Error::Data {
    int code = 0;
    bool consumed = false;
    // frames[0] is where the error was created; later frames wrap it.
    std::vector<Frame> frames;
};

Error::Error(Error&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }

Error& Error::operator=(Error&& other) noexcept {
    if (this != &other) {
        if (data_ && !data_->consumed) {
            fprintf(stderr, "srs: dropped error: %s\n", summary().c_str());
        }
        delete data_;
        data_ = other.data_;
        other.data_ = nullptr;
    }
    return *this;
}

Error::~Error() {
    // A failure that nobody logged or ignored is a bug in the caller; say so
    // rather than lose it.
    if (data_ && !data_->consumed) {
        fprintf(stderr, "srs: dropped error: %s\n", summary().c_str());
    }
    delete data_;
}

Error Error::make(int code, const char* file, int line, const char* fmt, ...) {
    Error err;
    err.data_ = new Data;
    err.data_->code = code;
    va_list ap;
    va_start(ap, fmt);
    err.data_->frames.push_back({base_name(file), line, current_context_id(), vformat(fmt, ap)});
    va_end(ap);
    return err;
}

Error Error::wrap(Error&& cause, const char* file, int line, const char* fmt, ...) {
    Error err = std::move(cause);
    if (!err.data_) {
        // Wrapping success is a caller bug; keep it visible as a failure.
        err.data_ = new Data;
        err.data_->code = kErrorSystemIo;
    }
    va_list ap;
    va_start(ap, fmt);
    err.data_->frames.push_back({base_name(file), line, current_context_id(), vformat(fmt, ap)});
    va_end(ap);
    return err;
}

int Error::code() const {
    // Looking at the code is handling the error.
    if (!data_) return kSuccess;
    data_->consumed = true;
    return data_->code;
}

std::string Error::message() const {
    if (!data_ || data_->frames.empty()) return "";
    return data_->frames.front().message;
}

std::string Error::describe() const {
    if (!data_) return "success";
    data_->consumed = true;
    std::string out = "code=" + std::to_string(data_->code) + " " + summary();
    for (auto it = data_->frames.rbegin(); it != data_->frames.rend(); ++it) {
        out += "\n    at " + it->file + ":" + std::to_string(it->line);
        if (!it->cid.empty()) out += " [" + it->cid + "]";
        out += " " + it->message;
    }
    return out;
}

std::string Error::summary() const {
    if (!data_) return "success";
    data_->consumed = true;
    std::string out;
    for (auto it = data_->frames.rbegin(); it != data_->frames.rend(); ++it) {
        if (!out.empty()) out += " : ";
        out += it->message;
    }
    return out;
}

void Error::ignore() {
    if (data_) data_->consumed = true;
}

Error Error::copy() const {
    Error err;
    if (data_) {
        err.data_ = new Data(*data_);
        err.data_->consumed = false;
    }
    return err;
}

}  // namespace srs
