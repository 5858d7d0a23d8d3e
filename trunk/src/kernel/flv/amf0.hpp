// AMF0 values and their wire format (Action Message Format 0, as used by RTMP
// commands, RTMP data messages and FLV script tags).
//
// Guarantees:
// - amf0_decode never reads outside the ByteReader's span and never allocates
//   more than the input can justify: every length and count is checked against
//   the bytes left before anything is reserved.
// - Nesting is limited to kAmf0MaxDepth, so hostile input cannot exhaust the stack.
// - References (marker 7) are resolved to a copy of the value they name, and the
//   total size such copies may add is bounded (kAmf0MaxReferenceBytes).
// - amf0_encode(amf0_decode(x)) == x for canonical input: strings shorter than
//   64 KiB as marker 2, longer as marker 12, ECMA array counts equal to the
//   number of properties, no references.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffer.hpp"
#include "core/error.hpp"

namespace srs {

// The wire markers (first byte of every value).
enum Amf0Marker : uint8_t {
    kAmf0Number = 0x00,
    kAmf0Boolean = 0x01,
    kAmf0String = 0x02,
    kAmf0Object = 0x03,
    kAmf0MovieClip = 0x04,  // reserved, not supported
    kAmf0Null = 0x05,
    kAmf0Undefined = 0x06,
    kAmf0Reference = 0x07,
    kAmf0EcmaArray = 0x08,
    kAmf0ObjectEnd = 0x09,
    kAmf0StrictArray = 0x0a,
    kAmf0Date = 0x0b,
    kAmf0LongString = 0x0c,
};

// Limits applied by the decoder (per amf0_decode / amf0_decode_all call).
constexpr int kAmf0MaxDepth = 64;                       // objects/arrays inside each other
constexpr size_t kAmf0MaxValues = 256 * 1024;           // values decoded, nested ones included
constexpr size_t kAmf0MaxReferenceBytes = 1024 * 1024;  // input bytes that references may replay

// What a decoded value is. A long string decodes to kString (the encoder picks the
// marker by length); a reference decodes to the type of the value it names.
enum class Amf0Type : uint8_t {
    kNumber,
    kBoolean,
    kString,
    kObject,
    kNull,
    kUndefined,
    kEcmaArray,
    kStrictArray,
    kDate,
};

const char* amf0_type_name(Amf0Type t);

struct Amf0Property;

// One AMF0 value. Objects and ECMA arrays keep their properties in wire order;
// set() replaces a property of the same name in place or appends a new one.
class Amf0Value {
  public:
    // Undefined.
    Amf0Value() = default;

    static Amf0Value number(double v);
    static Amf0Value boolean(bool v);
    static Amf0Value string(std::string v);
    static Amf0Value object();
    static Amf0Value ecma_array();
    static Amf0Value strict_array();
    static Amf0Value null();
    static Amf0Value undefined();
    static Amf0Value date(double ms_since_epoch, int16_t timezone = 0);

    Amf0Type type() const { return type_; }
    bool is_number() const { return type_ == Amf0Type::kNumber; }
    bool is_boolean() const { return type_ == Amf0Type::kBoolean; }
    bool is_string() const { return type_ == Amf0Type::kString; }
    bool is_object() const { return type_ == Amf0Type::kObject; }
    bool is_ecma_array() const { return type_ == Amf0Type::kEcmaArray; }
    // Object or ECMA array: the types that have named properties.
    bool has_properties() const { return is_object() || is_ecma_array(); }
    bool is_strict_array() const { return type_ == Amf0Type::kStrictArray; }
    bool is_null() const { return type_ == Amf0Type::kNull; }
    bool is_undefined() const { return type_ == Amf0Type::kUndefined; }
    bool is_null_or_undefined() const { return is_null() || is_undefined(); }
    bool is_date() const { return type_ == Amf0Type::kDate; }

    // Accessors return a neutral value (0, false, "") for another type.
    double as_number() const { return (is_number() || is_date()) ? number_ : 0; }
    bool as_bool() const { return is_boolean() && boolean_; }
    const std::string& as_string() const;
    double date_ms() const { return is_date() ? number_ : 0; }
    int16_t date_timezone() const { return is_date() ? timezone_ : 0; }

    // Properties (object and ECMA array; empty for other types).
    const std::vector<Amf0Property>& properties() const;
    // The property named `key`, or nullptr.
    const Amf0Value* get(std::string_view key) const;
    Amf0Value* get(std::string_view key);
    // Sets a property (turns a non-property value into an empty object first).
    Amf0Value& set(std::string key, Amf0Value value);
    // Removes the property named `key`; false when there was none.
    bool remove(std::string_view key);
    // Typed lookups: the property's value when it has that type, else `fallback`.
    std::string get_string(std::string_view key, const std::string& fallback = "") const;
    double get_number(std::string_view key, double fallback = 0) const;
    bool get_bool(std::string_view key, bool fallback = false) const;

    // Elements (strict array; empty for other types).
    const std::vector<Amf0Value>& elements() const { return elements_; }
    // Appends an element (turns a non-array value into an empty strict array first).
    Amf0Value& push(Amf0Value value);

    // Deep equality (numbers compare by value, so NaN != NaN).
    bool operator==(const Amf0Value& o) const;
    bool operator!=(const Amf0Value& o) const { return !(*this == o); }

    // A short human-readable form for logs: {app: "live", n: 1}.
    std::string to_debug_string() const;

  private:
    friend class Amf0Decoder;
    Amf0Type type_ = Amf0Type::kUndefined;
    bool boolean_ = false;
    int16_t timezone_ = 0;
    double number_ = 0;
    std::string string_;
    std::vector<Amf0Property> properties_;
    std::vector<Amf0Value> elements_;
};

struct Amf0Property {
    std::string key;
    Amf0Value value;
    bool operator==(const Amf0Property& o) const { return key == o.key && value == o.value; }
};

// Decodes one value at the reader's position and advances past it. On error the
// reader's position is unspecified and *out is left undefined-typed.
// References resolve within this one value (the table starts empty per call).
Error amf0_decode(ByteReader* r, Amf0Value* out);

// Decodes values until the reader is empty (appends to *out). The values share
// one reference table and one set of limits, as the values of one message do.
// On error, the values decoded before the bad one stay in *out.
Error amf0_decode_all(ByteReader* r, std::vector<Amf0Value>* out);

// Appends the encoding of `v`. Property names longer than 65535 bytes are cut
// to 65535 (the wire holds a 16-bit length).
void amf0_encode(ByteWriter* w, const Amf0Value& v);

// The encoded size of `v` in bytes.
size_t amf0_encoded_size(const Amf0Value& v);

}  // namespace srs
