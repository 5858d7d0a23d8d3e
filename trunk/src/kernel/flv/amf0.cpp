// AMF0 decoder and encoder. See amf0.hpp for the guarantees.
#include "kernel/flv/amf0.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

namespace srs {

namespace {

const std::string kEmptyString;
const std::vector<Amf0Property> kNoProperties;

double double_from_bits(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
}

uint64_t bits_from_double(double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof(bits));
    return bits;
}

}  // namespace

const char* amf0_type_name(Amf0Type t) {
    switch (t) {
        case Amf0Type::kNumber: return "number";
        case Amf0Type::kBoolean: return "boolean";
        case Amf0Type::kString: return "string";
        case Amf0Type::kObject: return "object";
        case Amf0Type::kNull: return "null";
        case Amf0Type::kUndefined: return "undefined";
        case Amf0Type::kEcmaArray: return "ecma-array";
        case Amf0Type::kStrictArray: return "strict-array";
        case Amf0Type::kDate: return "date";
    }
    return "unknown";
}

// ---- Amf0Value ----

Amf0Value Amf0Value::number(double v) {
    Amf0Value a;
    a.type_ = Amf0Type::kNumber;
    a.number_ = v;
    return a;
}

Amf0Value Amf0Value::boolean(bool v) {
    Amf0Value a;
    a.type_ = Amf0Type::kBoolean;
    a.boolean_ = v;
    return a;
}

Amf0Value Amf0Value::string(std::string v) {
    Amf0Value a;
    a.type_ = Amf0Type::kString;
    a.string_ = std::move(v);
    return a;
}

Amf0Value Amf0Value::object() {
    Amf0Value a;
    a.type_ = Amf0Type::kObject;
    return a;
}

Amf0Value Amf0Value::ecma_array() {
    Amf0Value a;
    a.type_ = Amf0Type::kEcmaArray;
    return a;
}

Amf0Value Amf0Value::strict_array() {
    Amf0Value a;
    a.type_ = Amf0Type::kStrictArray;
    return a;
}

Amf0Value Amf0Value::null() {
    Amf0Value a;
    a.type_ = Amf0Type::kNull;
    return a;
}

Amf0Value Amf0Value::undefined() { return Amf0Value(); }

Amf0Value Amf0Value::date(double ms_since_epoch, int16_t timezone) {
    Amf0Value a;
    a.type_ = Amf0Type::kDate;
    a.number_ = ms_since_epoch;
    a.timezone_ = timezone;
    return a;
}

const std::string& Amf0Value::as_string() const { return is_string() ? string_ : kEmptyString; }

const std::vector<Amf0Property>& Amf0Value::properties() const {
    return has_properties() ? properties_ : kNoProperties;
}

const Amf0Value* Amf0Value::get(std::string_view key) const {
    if (!has_properties()) return nullptr;
    for (const Amf0Property& p : properties_) {
        if (p.key == key) return &p.value;
    }
    return nullptr;
}

Amf0Value* Amf0Value::get(std::string_view key) {
    return const_cast<Amf0Value*>(static_cast<const Amf0Value*>(this)->get(key));
}

Amf0Value& Amf0Value::set(std::string key, Amf0Value value) {
    if (!has_properties()) *this = object();
    if (Amf0Value* existing = get(key)) {
        *existing = std::move(value);
    } else {
        properties_.push_back(Amf0Property{std::move(key), std::move(value)});
    }
    return *this;
}

bool Amf0Value::remove(std::string_view key) {
    if (!has_properties()) return false;
    for (auto it = properties_.begin(); it != properties_.end(); ++it) {
        if (it->key == key) {
            properties_.erase(it);
            return true;
        }
    }
    return false;
}

std::string Amf0Value::get_string(std::string_view key, const std::string& fallback) const {
    const Amf0Value* v = get(key);
    return (v && v->is_string()) ? v->string_ : fallback;
}

double Amf0Value::get_number(std::string_view key, double fallback) const {
    const Amf0Value* v = get(key);
    return (v && v->is_number()) ? v->number_ : fallback;
}

bool Amf0Value::get_bool(std::string_view key, bool fallback) const {
    const Amf0Value* v = get(key);
    return (v && v->is_boolean()) ? v->boolean_ : fallback;
}

Amf0Value& Amf0Value::push(Amf0Value value) {
    if (!is_strict_array()) *this = strict_array();
    elements_.push_back(std::move(value));
    return *this;
}

bool Amf0Value::operator==(const Amf0Value& o) const {
    if (type_ != o.type_) return false;
    switch (type_) {
        case Amf0Type::kNumber: return number_ == o.number_;
        case Amf0Type::kBoolean: return boolean_ == o.boolean_;
        case Amf0Type::kString: return string_ == o.string_;
        case Amf0Type::kObject:
        case Amf0Type::kEcmaArray: return properties_ == o.properties_;
        case Amf0Type::kStrictArray: return elements_ == o.elements_;
        case Amf0Type::kDate: return number_ == o.number_ && timezone_ == o.timezone_;
        case Amf0Type::kNull:
        case Amf0Type::kUndefined: return true;
    }
    return false;
}

namespace {

void append_number(std::string* out, double v) {
    char buf[40];
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
        snprintf(buf, sizeof(buf), "%.0f", v);
    } else {
        snprintf(buf, sizeof(buf), "%.17g", v);
    }
    out->append(buf);
}

void append_debug(std::string* out, const Amf0Value& v) {
    switch (v.type()) {
        case Amf0Type::kNumber: append_number(out, v.as_number()); break;
        case Amf0Type::kBoolean: out->append(v.as_bool() ? "true" : "false"); break;
        case Amf0Type::kString: out->append("\"").append(v.as_string()).append("\""); break;
        case Amf0Type::kNull: out->append("null"); break;
        case Amf0Type::kUndefined: out->append("undefined"); break;
        case Amf0Type::kDate:
            out->append("date(");
            append_number(out, v.date_ms());
            out->append(")");
            break;
        case Amf0Type::kObject:
        case Amf0Type::kEcmaArray: {
            out->append(v.is_object() ? "{" : "ecma{");
            const char* sep = "";
            for (const Amf0Property& p : v.properties()) {
                out->append(sep).append(p.key).append(": ");
                append_debug(out, p.value);
                sep = ", ";
            }
            out->append("}");
            break;
        }
        case Amf0Type::kStrictArray: {
            out->append("[");
            const char* sep = "";
            for (const Amf0Value& e : v.elements()) {
                out->append(sep);
                append_debug(out, e);
                sep = ", ";
            }
            out->append("]");
            break;
        }
    }
}

}  // namespace

std::string Amf0Value::to_debug_string() const {
    std::string out;
    append_debug(&out, *this);
    return out;
}

// ---- Decoder ----
//
// Every value starts with a one-byte marker; multi-byte numbers are big-endian.
//
//   marker  name          body after the marker
//   0x00    number        8 bytes IEEE-754 double
//   0x01    boolean       1 byte, 0 = false, anything else = true
//   0x02    string        u16 length, UTF-8 bytes
//   0x03    object        properties, then object-end
//   0x04    movieclip     reserved: error
//   0x05    null          -
//   0x06    undefined     -
//   0x07    reference     u16 index into the table of complex values (objects,
//                         ECMA arrays, strict arrays) in the order they began
//   0x08    ECMA array    u32 count (advisory: encoders lie), properties, object-end
//   0x09    object-end    only valid as the end of a property list: 00 00 09
//   0x0a    strict array  u32 count, that many values
//   0x0b    date          8 bytes double (ms since epoch), s16 timezone (0)
//   0x0c    long string   u32 length, UTF-8 bytes
//   0x0d..  unsupported, recordset, XML, typed object, AVM+: error
//
//   property := u16 key length, key bytes, value
//   The property list ends at a zero-length key followed by the 0x09 marker;
//   a zero-length key followed by any other marker is a property named "".
class Amf0Decoder {
  public:
    explicit Amf0Decoder(const ByteReader& r) : base_(r.current() - r.position()) {}

    Error decode(ByteReader* r, Amf0Value* out, int depth);

  private:
    struct ComplexValue {
        size_t begin;  // position of the marker in the outermost reader
        size_t end;    // position after the value, valid when done
        bool done;
    };

    Error decode_properties(ByteReader* r, std::vector<Amf0Property>* props, int depth);
    Error decode_strict_array(ByteReader* r, Amf0Value* out, int depth);
    Error decode_reference(ByteReader* r, Amf0Value* out, int depth);
    // Adds a complex value beginning at the marker just read; returns its index
    // (SIZE_MAX when replaying a reference: those values are already in the table).
    size_t begin_complex(const ByteReader& r);
    void end_complex(size_t index, const ByteReader& r);

    const uint8_t* base_;  // start of the outermost reader's span
    std::vector<ComplexValue> table_;
    size_t values_ = 0;
    size_t replay_budget_ = kAmf0MaxReferenceBytes;
    int replaying_ = 0;
};

size_t Amf0Decoder::begin_complex(const ByteReader& r) {
    if (replaying_ > 0) return SIZE_MAX;
    table_.push_back(ComplexValue{r.position() - 1, 0, false});
    return table_.size() - 1;
}

void Amf0Decoder::end_complex(size_t index, const ByteReader& r) {
    if (index == SIZE_MAX) return;
    table_[index].end = r.position();
    table_[index].done = true;
}

Error Amf0Decoder::decode(ByteReader* r, Amf0Value* out, int depth) {
    if (depth > kAmf0MaxDepth) {
        return SRS_ERR(kErrorAmf0TooDeep, "amf0 nesting deeper than %d", kAmf0MaxDepth);
    }
    if (++values_ > kAmf0MaxValues) {
        return SRS_ERR(kErrorAmf0TooManyValues, "amf0 more than %zu values", kAmf0MaxValues);
    }
    uint8_t marker = 0;
    if (!r->read_u8(&marker)) return SRS_ERR(kErrorAmf0Truncated, "amf0 no marker");

    switch (marker) {
        case kAmf0Number: {
            uint64_t bits = 0;
            if (!r->read_u64be(&bits)) return SRS_ERR(kErrorAmf0Truncated, "amf0 number needs 8 bytes");
            *out = Amf0Value::number(double_from_bits(bits));
            return Error();
        }
        case kAmf0Boolean: {
            uint8_t b = 0;
            if (!r->read_u8(&b)) return SRS_ERR(kErrorAmf0Truncated, "amf0 boolean needs 1 byte");
            *out = Amf0Value::boolean(b != 0);
            return Error();
        }
        case kAmf0String: {
            uint16_t len = 0;
            *out = Amf0Value::string("");
            if (!r->read_u16be(&len)) return SRS_ERR(kErrorAmf0Truncated, "amf0 string length");
            if (!r->read_string(&out->string_, len)) {
                return SRS_ERR(kErrorAmf0Truncated, "amf0 string of %u bytes, %zu left", len, r->remaining());
            }
            return Error();
        }
        case kAmf0LongString: {
            uint32_t len = 0;
            *out = Amf0Value::string("");
            if (!r->read_u32be(&len)) return SRS_ERR(kErrorAmf0Truncated, "amf0 long string length");
            if (!r->require(len)) {
                return SRS_ERR(kErrorAmf0LengthTooLarge, "amf0 long string of %" PRIu32 " bytes, %zu left", len,
                               r->remaining());
            }
            if (!r->read_string(&out->string_, len)) return SRS_ERR(kErrorAmf0Truncated, "amf0 long string");
            return Error();
        }
        case kAmf0Null: *out = Amf0Value::null(); return Error();
        case kAmf0Undefined: *out = Amf0Value::undefined(); return Error();
        case kAmf0Date: {
            uint64_t bits = 0;
            uint16_t tz = 0;
            if (!r->read_u64be(&bits) || !r->read_u16be(&tz)) {
                return SRS_ERR(kErrorAmf0Truncated, "amf0 date needs 10 bytes");
            }
            *out = Amf0Value::date(double_from_bits(bits), static_cast<int16_t>(tz));
            return Error();
        }
        case kAmf0Object: {
            size_t index = begin_complex(*r);
            *out = Amf0Value::object();
            if (Error err = decode_properties(r, &out->properties_, depth); !err.ok()) {
                return SRS_WRAP(err, "amf0 object");
            }
            end_complex(index, *r);
            return Error();
        }
        case kAmf0EcmaArray: {
            size_t index = begin_complex(*r);
            *out = Amf0Value::ecma_array();
            uint32_t count = 0;
            if (!r->read_u32be(&count)) return SRS_ERR(kErrorAmf0Truncated, "amf0 ecma array count");
            // The count is advisory; a property takes at least 3 bytes (empty key, marker).
            out->properties_.reserve(std::min<size_t>(count, r->remaining() / 3));
            if (Error err = decode_properties(r, &out->properties_, depth); !err.ok()) {
                return SRS_WRAP(err, "amf0 ecma array");
            }
            end_complex(index, *r);
            return Error();
        }
        case kAmf0StrictArray: {
            size_t index = begin_complex(*r);
            if (Error err = decode_strict_array(r, out, depth); !err.ok()) return err;
            end_complex(index, *r);
            return Error();
        }
        case kAmf0Reference: return decode_reference(r, out, depth);
        case kAmf0ObjectEnd:
            return SRS_ERR(kErrorAmf0UnexpectedObjectEnd, "amf0 object-end marker where a value was expected");
        default: return SRS_ERR(kErrorAmf0UnknownMarker, "amf0 unsupported marker 0x%02x", marker);
    }
}

Error Amf0Decoder::decode_properties(ByteReader* r, std::vector<Amf0Property>* props, int depth) {
    for (;;) {
        uint16_t key_len = 0;
        if (!r->read_u16be(&key_len)) {
            return SRS_ERR(kErrorAmf0MissingObjectEnd, "input ends after %zu properties", props->size());
        }
        if (key_len == 0) {
            const uint8_t* next = r->current();
            if (r->empty()) return SRS_ERR(kErrorAmf0MissingObjectEnd, "input ends after an empty key");
            if (*next == kAmf0ObjectEnd) {
                (void)r->skip(1);
                return Error();
            }
        }
        props->push_back(Amf0Property{});
        Amf0Property& p = props->back();
        if (!r->read_string(&p.key, key_len)) {
            return SRS_ERR(kErrorAmf0Truncated, "property name of %u bytes, %zu left", key_len, r->remaining());
        }
        // `p` stays valid: nothing appends to this vector while its value decodes.
        if (Error err = decode(r, &p.value, depth + 1); !err.ok()) {
            return SRS_WRAP(err, "property \"%.64s\"", p.key.c_str());
        }
    }
}

Error Amf0Decoder::decode_strict_array(ByteReader* r, Amf0Value* out, int depth) {
    *out = Amf0Value::strict_array();
    uint32_t count = 0;
    if (!r->read_u32be(&count)) return SRS_ERR(kErrorAmf0Truncated, "amf0 strict array count");
    // Every element takes at least one byte, and counts against the value budget.
    if (count > r->remaining()) {
        return SRS_ERR(kErrorAmf0LengthTooLarge, "amf0 strict array of %" PRIu32 " elements, %zu bytes left", count,
                       r->remaining());
    }
    if (count > kAmf0MaxValues - values_) {
        return SRS_ERR(kErrorAmf0TooManyValues, "amf0 strict array of %" PRIu32 " elements", count);
    }
    out->elements_.resize(count);
    for (uint32_t i = 0; i < count; i++) {
        if (Error err = decode(r, &out->elements_[i], depth + 1); !err.ok()) {
            return SRS_WRAP(err, "amf0 strict array element %" PRIu32, i);
        }
    }
    return Error();
}

Error Amf0Decoder::decode_reference(ByteReader* r, Amf0Value* out, int depth) {
    uint16_t index = 0;
    if (!r->read_u16be(&index)) return SRS_ERR(kErrorAmf0Truncated, "amf0 reference index");
    if (index >= table_.size()) {
        return SRS_ERR(kErrorAmf0BadReference, "amf0 reference %u, %zu complex values so far", index, table_.size());
    }
    const ComplexValue& target = table_[index];
    if (!target.done) return SRS_ERR(kErrorAmf0BadReference, "amf0 reference %u to a value still open", index);
    size_t len = target.end - target.begin;
    if (len > replay_budget_) {
        return SRS_ERR(kErrorAmf0ReferenceBudget, "amf0 references replay more than %zu bytes",
                       kAmf0MaxReferenceBytes);
    }
    replay_budget_ -= len;
    // Decode the referenced bytes again: the copy is exactly the value they encode.
    ByteReader replay(base_ + target.begin, len);
    replaying_++;
    Error err = decode(&replay, out, depth + 1);
    replaying_--;
    if (!err.ok()) return SRS_WRAP(err, "amf0 reference %u", index);
    return Error();
}

Error amf0_decode(ByteReader* r, Amf0Value* out) {
    Amf0Decoder decoder(*r);
    Error err = decoder.decode(r, out, 0);
    if (!err.ok()) *out = Amf0Value();
    return err;
}

Error amf0_decode_all(ByteReader* r, std::vector<Amf0Value>* out) {
    Amf0Decoder decoder(*r);
    while (!r->empty()) {
        out->emplace_back();
        if (Error err = decoder.decode(r, &out->back(), 0); !err.ok()) {
            out->pop_back();
            return SRS_WRAP(err, "amf0 value %zu", out->size());
        }
    }
    return Error();
}

// ---- Encoder ----

namespace {

constexpr size_t kMaxShortString = 0xffff;

void encode_key(ByteWriter* w, const std::string& key) {
    size_t len = std::min(key.size(), kMaxShortString);
    w->write_u16be(static_cast<uint16_t>(len));
    w->write_bytes(key.data(), len);
}

void encode_string_body(ByteWriter* w, const std::string& s) {
    if (s.size() <= kMaxShortString) {
        w->write_u8(kAmf0String);
        w->write_u16be(static_cast<uint16_t>(s.size()));
        w->write_bytes(s.data(), s.size());
    } else {
        size_t len = std::min<size_t>(s.size(), UINT32_MAX);
        w->write_u8(kAmf0LongString);
        w->write_u32be(static_cast<uint32_t>(len));
        w->write_bytes(s.data(), len);
    }
}

void encode_properties(ByteWriter* w, const std::vector<Amf0Property>& props) {
    for (const Amf0Property& p : props) {
        encode_key(w, p.key);
        amf0_encode(w, p.value);
    }
    w->write_u16be(0);
    w->write_u8(kAmf0ObjectEnd);
}

}  // namespace

void amf0_encode(ByteWriter* w, const Amf0Value& v) {
    switch (v.type()) {
        case Amf0Type::kNumber:
            w->write_u8(kAmf0Number);
            w->write_u64be(bits_from_double(v.as_number()));
            break;
        case Amf0Type::kBoolean:
            w->write_u8(kAmf0Boolean);
            w->write_u8(v.as_bool() ? 1 : 0);
            break;
        case Amf0Type::kString: encode_string_body(w, v.as_string()); break;
        case Amf0Type::kNull: w->write_u8(kAmf0Null); break;
        case Amf0Type::kUndefined: w->write_u8(kAmf0Undefined); break;
        case Amf0Type::kDate:
            w->write_u8(kAmf0Date);
            w->write_u64be(bits_from_double(v.date_ms()));
            w->write_u16be(static_cast<uint16_t>(v.date_timezone()));
            break;
        case Amf0Type::kObject:
            w->write_u8(kAmf0Object);
            encode_properties(w, v.properties());
            break;
        case Amf0Type::kEcmaArray:
            w->write_u8(kAmf0EcmaArray);
            w->write_u32be(static_cast<uint32_t>(v.properties().size()));
            encode_properties(w, v.properties());
            break;
        case Amf0Type::kStrictArray:
            w->write_u8(kAmf0StrictArray);
            w->write_u32be(static_cast<uint32_t>(v.elements().size()));
            for (const Amf0Value& e : v.elements()) amf0_encode(w, e);
            break;
    }
}

size_t amf0_encoded_size(const Amf0Value& v) {
    switch (v.type()) {
        case Amf0Type::kNumber: return 9;
        case Amf0Type::kBoolean: return 2;
        case Amf0Type::kString: {
            size_t n = v.as_string().size();
            return n <= kMaxShortString ? 3 + n : 5 + std::min<size_t>(n, UINT32_MAX);
        }
        case Amf0Type::kNull:
        case Amf0Type::kUndefined: return 1;
        case Amf0Type::kDate: return 11;
        case Amf0Type::kObject:
        case Amf0Type::kEcmaArray: {
            size_t n = v.is_object() ? 1 : 5;
            for (const Amf0Property& p : v.properties()) {
                n += 2 + std::min(p.key.size(), kMaxShortString) + amf0_encoded_size(p.value);
            }
            return n + 3;
        }
        case Amf0Type::kStrictArray: {
            size_t n = 5;
            for (const Amf0Value& e : v.elements()) n += amf0_encoded_size(e);
            return n;
        }
    }
    return 0;
}

}  // namespace srs
