"""Enhanced RTMP (E-RTMP v1) video tags for AV1, made from an IVF file.

Debian 12's ffmpeg 5.1 cannot mux AV1 into FLV, so tests encode AV1 to IVF
and turn it into the tag bodies an E-RTMP publisher sends:

  SequenceStart: 0x80 | frame type 1 << 4 | 0, 'av01', the av1C record
  CodedFrames:   0x80 | frame type (1 key, 2 inter) << 4 | 1, 'av01',
                 the temporal unit's OBUs (no composition time for av01)

The av1C (AV1 ISOBMFF binding 2.3) is built from the sequence header OBU of
the first temporal unit; the temporal units keep their OBUs (obu_size in
each) but lose the temporal delimiters, as in the ISOBMFF binding."""
import struct
from dataclasses import dataclass

OBU_SEQUENCE_HEADER = 1
OBU_TEMPORAL_DELIMITER = 2
OBU_PADDING = 15

EX_HEADER = 0x80
FRAME_KEY = 1
FRAME_INTER = 2
PACKET_SEQUENCE_START = 0
PACKET_CODED_FRAMES = 1
FOURCC_AV1 = b"av01"


@dataclass
class Ivf:
    width: int
    height: int
    timebase: tuple  # (numerator, denominator) seconds per timestamp unit
    frames: list     # [(timestamp, temporal unit bytes)]

    def ms(self, timestamp):
        return timestamp * 1000 * self.timebase[0] // self.timebase[1]


def read_ivf(path):
    data = open(path, "rb").read()
    if data[:4] != b"DKIF" or data[8:12] != b"AV01":
        raise ValueError(f"{path}: not an AV1 IVF file ({data[:12]!r})")
    header_size, = struct.unpack_from("<H", data, 6)
    width, height, den, num = struct.unpack_from("<HHII", data, 12)
    frames, pos = [], header_size
    while pos + 12 <= len(data):
        size, ts = struct.unpack_from("<IQ", data, pos)
        pos += 12
        if pos + size > len(data):
            raise ValueError(f"{path}: frame of {size} bytes at {pos} past the end")
        frames.append((ts, data[pos:pos + size]))
        pos += size
    return Ivf(width, height, (num, den), frames)


def leb128(data, pos):
    """(value, position after it)."""
    value = 0
    for i in range(8):
        b = data[pos + i]
        value |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            return value, pos + i + 1
    raise ValueError("leb128 longer than 8 bytes")


def split_obus(unit):
    """[(obu_type, the whole OBU, its payload)] of a low-overhead bitstream (each OBU with obu_size)."""
    out, pos = [], 0
    while pos < len(unit):
        start, header = pos, unit[pos]
        if header & 0x80:
            raise ValueError(f"OBU at {pos}: forbidden bit")
        if not header & 0x02:
            raise ValueError(f"OBU at {pos}: no obu_size (not a low-overhead bitstream)")
        pos += 2 if header & 0x04 else 1
        size, pos = leb128(unit, pos)
        if pos + size > len(unit):
            raise ValueError(f"OBU at {start}: {size} bytes past the end")
        out.append(((header >> 3) & 0x0F, unit[start:pos + size], unit[pos:pos + size]))
        pos += size
    return out


class Bits:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def u(self, n):
        v = 0
        for _ in range(n):
            if self.pos >= 8 * len(self.data):
                raise ValueError("sequence header truncated")
            v = (v << 1) | ((self.data[self.pos >> 3] >> (7 - (self.pos & 7))) & 1)
            self.pos += 1
        return v

    def uvlc(self):
        zeros = 0
        while not self.u(1):
            zeros += 1
        return 0xFFFFFFFF if zeros >= 32 else self.u(zeros) + (1 << zeros) - 1


def sequence_header_fields(payload):
    """The av1C fields of a sequence_header_obu() payload (AV1 spec 5.5)."""
    b = Bits(payload)
    f = {"seq_profile": b.u(3), "seq_tier_0": 0}
    b.u(1)  # still_picture
    reduced = b.u(1)
    if reduced:
        f["seq_level_idx_0"] = b.u(5)
    else:
        decoder_model_info = False
        buffer_delay_length = 0
        if b.u(1):  # timing_info_present_flag
            b.u(32)
            b.u(32)
            if b.u(1):  # equal_picture_interval
                b.uvlc()
            decoder_model_info = b.u(1)
            if decoder_model_info:
                buffer_delay_length = b.u(5) + 1
                b.u(32)
                b.u(5)
                b.u(5)
        initial_display_delay = b.u(1)
        for i in range(b.u(5) + 1):
            b.u(12)  # operating_point_idc
            level = b.u(5)
            tier = b.u(1) if level > 7 else 0
            if i == 0:
                f["seq_level_idx_0"], f["seq_tier_0"] = level, tier
            if decoder_model_info and b.u(1):
                b.u(buffer_delay_length)
                b.u(buffer_delay_length)
                b.u(1)
            if initial_display_delay and b.u(1):
                b.u(4)
    width_bits, height_bits = b.u(4) + 1, b.u(4) + 1
    f["max_frame_width"] = b.u(width_bits) + 1
    f["max_frame_height"] = b.u(height_bits) + 1
    if not reduced and b.u(1):  # frame_id_numbers_present_flag
        b.u(4)
        b.u(3)
    b.u(3)  # use_128x128_superblock, enable_filter_intra, enable_intra_edge_filter
    if not reduced:
        b.u(4)  # interintra_compound, masked_compound, warped_motion, dual_filter
        order_hint = b.u(1)
        if order_hint:
            b.u(2)  # jnt_comp, ref_frame_mvs
        screen_content = 2 if b.u(1) else b.u(1)  # seq_choose_screen_content_tools
        if screen_content > 0 and not b.u(1):  # seq_choose_integer_mv
            b.u(1)
        if order_hint:
            b.u(3)
    b.u(3)  # enable_superres, enable_cdef, enable_restoration
    # color_config()
    profile = f["seq_profile"]
    high_bitdepth = b.u(1)
    twelve_bit = b.u(1) if profile == 2 and high_bitdepth else 0
    mono = 0 if profile == 1 else b.u(1)
    primaries, transfer, matrix = 2, 2, 2  # unspecified
    if b.u(1):  # color_description_present_flag
        primaries, transfer, matrix = b.u(8), b.u(8), b.u(8)
    sx, sy, position = 1, 1, 0
    if mono:
        b.u(1)  # color_range
    elif primaries == 1 and transfer == 13 and matrix == 0:  # BT.709, sRGB, identity
        sx, sy = 0, 0
    else:
        b.u(1)  # color_range
        if profile == 0:
            sx, sy = 1, 1
        elif profile == 1:
            sx, sy = 0, 0
        elif twelve_bit:
            sx = b.u(1)
            sy = b.u(1) if sx else 0
        else:
            sx, sy = 1, 0
        if sx and sy:
            position = b.u(2)
    f.update(high_bitdepth=high_bitdepth, twelve_bit=twelve_bit, monochrome=mono,
             chroma_subsampling_x=sx, chroma_subsampling_y=sy, chroma_sample_position=position)
    return f


def av1c(sequence_header_obu):
    """AV1CodecConfigurationRecord: 4 bytes of fields, then the sequence header OBU as configOBUs."""
    (obu_type, whole, payload), = split_obus(sequence_header_obu)
    if obu_type != OBU_SEQUENCE_HEADER:
        raise ValueError(f"OBU type {obu_type} is not a sequence header")
    f = sequence_header_fields(payload)
    return bytes([
        0x81,  # marker, version 1
        (f["seq_profile"] << 5) | f["seq_level_idx_0"],
        (f["seq_tier_0"] << 7) | (f["high_bitdepth"] << 6) | (f["twelve_bit"] << 5) | (f["monochrome"] << 4)
        | (f["chroma_subsampling_x"] << 3) | (f["chroma_subsampling_y"] << 2) | f["chroma_sample_position"],
        0,  # no initial_presentation_delay
    ]) + whole


def sequence_start_tag(record):
    return bytes([EX_HEADER | FRAME_KEY << 4 | PACKET_SEQUENCE_START]) + FOURCC_AV1 + record


def coded_frames_tag(unit, keyframe):
    frame_type = FRAME_KEY if keyframe else FRAME_INTER
    return bytes([EX_HEADER | frame_type << 4 | PACKET_CODED_FRAMES]) + FOURCC_AV1 + unit


def av1_video_tags(ivf):
    """(av1C record, [(ms, tag body, keyframe)]): the SequenceStart tag first, at 0 ms.

    A temporal unit with a sequence header OBU is a keyframe (libaom and SVT
    put one before each key frame)."""
    first = split_obus(ivf.frames[0][1])
    headers = [whole for t, whole, _ in first if t == OBU_SEQUENCE_HEADER]
    if not headers:
        raise ValueError("the first temporal unit has no sequence header OBU")
    record = av1c(headers[0])
    tags = [(0, sequence_start_tag(record), True)]
    for ts, unit in ivf.frames:
        obus = split_obus(unit)
        key = any(t == OBU_SEQUENCE_HEADER for t, _, _ in obus)
        body = b"".join(whole for t, whole, _ in obus if t not in (OBU_TEMPORAL_DELIMITER, OBU_PADDING))
        tags.append((ivf.ms(ts), coded_frames_tag(body, key), key))
    return record, tags
