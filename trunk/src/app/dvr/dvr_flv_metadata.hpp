// The onMetaData of a DVR FLV file and its patch on close, as pure
// functions (the FLV writer and the crash recovery do the I/O).
//
// The file's script tag is the publisher's onMetaData with "duration" and
// "filesize" moved to the front of the ECMA array as 0, so their 8-byte
// numbers sit at offsets known when the tag is written; on close the writer
// overwrites them in place with the recording's length and size, as SRS does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "kernel/flv/amf0.hpp"

namespace srs {

// The onMetaData properties of a data message body ("onMetaData" or
// "@setDataFrame", "onMetaData", then an object or ECMA array).
Error dvr_parse_metadata(const uint8_t* body, size_t n, Amf0Value* out);

struct DvrFlvMetadata {
    std::string body;        // the script tag body
    size_t duration_at = 0;  // offset in body of the duration's 8 bytes
    size_t filesize_at = 0;  // and of the filesize's
};

// publisher: its onMetaData properties, or nullptr (a stream without one).
DvrFlvMetadata dvr_flv_metadata(const Amf0Value* publisher);

// An AMF0 number's 8 bytes (IEEE 754 double, big endian).
std::string amf0_number_bytes(double v);

// For a script tag body read back from a file: where our duration and
// filesize numbers are (false when the body is not laid out by
// dvr_flv_metadata, e.g. an FLV from elsewhere).
bool dvr_find_metadata_fields(const std::string& body, size_t* duration_at, size_t* filesize_at);

}  // namespace srs
