# SPDX-License-Identifier: BSD-3-Clause
"""Reading the pcapng files lsw writes (capture.start): lswctl capture and the tests."""
import struct


def pcapng_frames(path):
    """(interface name, epb_flags, ns timestamp, length on the wire, bytes) of each frame of
    a pcapng file as lsw writes it: one section, nanosecond timestamps."""
    with open(path, "rb") as f:
        data = f.read()
    order = "<" if data[8:12] == struct.pack("<I", 0x1A2B3C4D) else ">"
    names, off = [], 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from(order + "II", data, off)
        if blen < 12 or off + blen > len(data):
            break  # a block still being written
        body = data[off + 8:off + blen - 4]
        if btype == 1:  # Interface Description Block: its if_name
            name, o = "if%d" % len(names), 8
            while o + 4 <= len(body):
                code, olen = struct.unpack_from(order + "HH", body, o)
                if code == 0:
                    break
                if code == 2:
                    name = body[o + 4:o + 4 + olen].decode(errors="replace")
                o += 4 + olen + (-olen % 4)
            names.append(name)
        elif btype == 6:  # Enhanced Packet Block
            ifid, hi, lo, caplen, wire = struct.unpack_from(order + "IIIII", body, 0)
            o, flags = 20 + caplen + (-caplen % 4), 0
            while o + 4 <= len(body):
                code, olen = struct.unpack_from(order + "HH", body, o)
                if code == 0:
                    break
                if code == 2:
                    flags = struct.unpack_from(order + "I", body, o + 4)[0]
                o += 4 + olen + (-olen % 4)
            yield (names[ifid] if ifid < len(names) else "if%d" % ifid, flags,
                   hi << 32 | lo, wire, body[20:20 + caplen])
        off += blen
