#!/usr/bin/env python3
"""Writes the crafted inputs of issue 21 into a folder, for
tools/convert_bound.sh: BVH and glTF files in the shapes a hostile user
would upload (deep and wide skeletons, headers that promise more than the
file holds, numbers at and past every limit, shared samplers, node chains,
accessor counts near u32::MAX, damaged GLB chunks, non-UTF-8 bytes), each
small enough to write in seconds. Usage: tools/hostile_inputs.py DIR
[--big] (--big adds the 22 MB node chain and a 60 MB BVH)."""

import json
import os
import struct
import sys

OUT = sys.argv[1]
BIG = "--big" in sys.argv[2:]
os.makedirs(OUT, exist_ok=True)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def put(name, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


# ---- BVH -------------------------------------------------------------------

ROT = "CHANNELS 3 Zrotation Xrotation Yrotation"
ROOT_CH = "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation"


def bvh(hierarchy, channels, frames, frame_time="0.0083333", line=None, count=None):
    """A BVH of `hierarchy` text, `frames` lines of `channels` zeros (or
    `line`), its header saying `count` frames (default `frames`)."""
    line = line if line is not None else " ".join(["0"] * channels)
    head = f"HIERARCHY\n{hierarchy}MOTION\nFrames: {frames if count is None else count}\n"
    head += f"Frame Time: {frame_time}\n"
    return head + "".join(line + "\n" for _ in range(frames))


def chain_bvh(joints):
    """A chain of `joints` joints, nested one in the next."""
    parts = [f"ROOT j0\n{{\nOFFSET 0 0 0\n{ROOT_CH}\n"]
    for i in range(1, joints):
        parts.append(f"JOINT j{i}\n{{\nOFFSET 0 1 0\n{ROT}\n")
    parts.append("End Site\n{\nOFFSET 0 1 0\n}\n")
    parts.append("}\n" * joints)
    return "".join(parts), 6 + 3 * (joints - 1)


def wide_bvh(children):
    """A root with `children` leaf joints."""
    parts = [f"ROOT j0\n{{\nOFFSET 0 0 0\n{ROOT_CH}\n"]
    for i in range(1, children + 1):
        parts.append(f"JOINT j{i}\n{{\nOFFSET 1 0 0\n{ROT}\nEnd Site\n{{\nOFFSET 0 1 0\n}}\n}}\n")
    parts.append("}\n")
    return "".join(parts), 6 + 3 * children


one, ch1 = chain_bvh(1)
put("bvh_tiny.bvh", bvh(one, ch1, 2))
h, ch = chain_bvh(2000)
put("bvh_chain_2000.bvh", bvh(h, ch, 2))
h, ch = chain_bvh(65_534)
put("bvh_chain_65534.bvh", bvh(h, ch, 1))
h, ch = chain_bvh(65_536)
put("bvh_chain_65536_past_limit.bvh", bvh(h, ch, 1))
h, ch = wide_bvh(65_533)
put("bvh_wide_65533.bvh", bvh(h, ch, 1))
put("bvh_frames_header_4e9.bvh", bvh(one, ch1, 2, count=4_000_000_000))
put("bvh_frames_header_u64.bvh", bvh(one, ch1, 2, count=18446744073709551615))
put("bvh_frames_fewer_than_header.bvh", bvh(one, ch1, 100, count=1_000_000))
put("bvh_frame_time_1e37.bvh", bvh(one, ch1, 3, frame_time="1e37"))
put("bvh_frame_time_1e-9.bvh", bvh(one, ch1, 3, frame_time="1e-9"))
put("bvh_values_3e38.bvh", bvh(one, ch1, 3, line=" ".join(["3e38"] * ch1)))
put("bvh_values_nan.bvh", bvh(one, ch1, 3, line=" ".join(["NaN"] * ch1)))
put("bvh_offset_3e38.bvh", bvh(one.replace("OFFSET 0 0 0", "OFFSET 3e38 3e38 3e38"), ch1, 2))
put("bvh_long_numbers.bvh", bvh(one, ch1, 20, line=" ".join(["0." + "1" * 100_000] * ch1)))
put("bvh_long_line.bvh", bvh(one, ch1, 2, line=" ".join(["0"] * ch1) + " " * 8_000_000))
put("bvh_channels_1e9.bvh", "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 1000000000 Xposition\n}\nMOTION\nFrames: 1\nFrame Time: 0.01\n0\n")
put("bvh_open_braces.bvh", "HIERARCHY\nROOT a\n" + "{\n" * 2_000_000)
put("bvh_not_utf8.bvh", b"HIERARCHY\nROOT \xff\xfe\n{\nOFFSET 0 0 0\n}\n")
put("bvh_nul_name.bvh", bvh(one.replace("j0", "j\x000"), ch1, 2))
put("bvh_empty.bvh", b"")
# Many frames of the CMU skeleton: the ordinary large input.
cmu = open(os.path.join(ROOT, "data/mocap/cmu_01_01_mb.bvh"), "rb").read()
put("bvh_cmu_truncated.bvh", cmu[: len(cmu) // 2 + 7])
head, motion = cmu.split(b"MOTION\n", 1)
lines = motion.split(b"\n")
frames = [l for l in lines[2:] if l.strip()]
reps = 60 if BIG else 8
many = frames * reps
put(
    f"bvh_cmu_{len(many)}_frames.bvh",
    head + b"MOTION\nFrames: %d\n" % len(many) + lines[1] + b"\n" + b"\n".join(many) + b"\n",
)

# ---- glTF ------------------------------------------------------------------


class Doc:
    """A glTF document with one binary buffer, written as .glb."""

    def __init__(self):
        self.d = {"asset": {"version": "2.0"}, "nodes": []}
        self.bin = bytearray()

    def push(self, key, v):
        self.d.setdefault(key, []).append(v)
        return len(self.d[key]) - 1

    def floats(self, values, type_, count=None):
        while len(self.bin) % 4:
            self.bin.append(0)
        view = self.push(
            "bufferViews",
            {"buffer": 0, "byteOffset": len(self.bin), "byteLength": 4 * len(values)},
        )
        self.bin += struct.pack(f"<{len(values)}f", *values)
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[type_]
        acc = {
            "bufferView": view,
            "componentType": 5126,
            "count": count if count is not None else len(values) // width,
            "type": type_,
        }
        if type_ == "SCALAR":
            acc["min"], acc["max"] = [min(values)], [max(values)]
        return self.push("accessors", acc)

    def glb(self, json_pad=0, bin_len=None, total=None):
        self.d["buffers"] = [{"byteLength": len(self.bin)}]
        j = json.dumps(self.d, separators=(",", ":")).encode() + b" " * json_pad
        j += b" " * (-len(j) % 4)
        b = bytes(self.bin) + b"\0" * (-len(self.bin) % 4)
        length = 12 + 8 + len(j) + 8 + len(b)
        out = struct.pack("<4sII", b"glTF", 2, total if total is not None else length)
        out += struct.pack("<I4s", len(j), b"JSON") + j
        out += struct.pack("<I4s", bin_len if bin_len is not None else len(b), b"BIN\0") + b
        return out


def shared_sampler(anims, nodes, seconds, keys=2):
    """`anims` animations whose channels (a translation on each of `nodes`
    nodes) all share one sampler of `keys` keys over `seconds`."""
    doc = Doc()
    for _ in range(nodes):
        doc.push("nodes", {})
    t = doc.floats([seconds * k / (keys - 1) for k in range(keys)], "SCALAR")
    v = doc.floats([0.0] * (3 * keys), "VEC3")
    for _ in range(anims):
        samplers = [{"input": t, "output": v, "interpolation": "LINEAR"}]
        channels = [{"sampler": 0, "target": {"node": n, "path": "translation"}} for n in range(nodes)]
        doc.push("animations", {"samplers": samplers, "channels": channels})
    return doc


put("glb_tiny.glb", shared_sampler(1, 1, 1.0).glb())
put("glb_8_anims_shared_sampler_279_nodes_1000s.glb", shared_sampler(8, 279, 1000.0).glb())
put("glb_2000_channels_one_100000_key_sampler.glb", shared_sampler(1, 2000, 1000.0, keys=100_000).glb())
put("glb_64_anims_2000_channels_1s.glb", shared_sampler(64, 2000, 1.0).glb())


def chain_gltf(n, skin_every=None):
    """A .gltf of `n` nodes in a chain (text written directly)."""
    nodes = ",".join(
        '{"translation":[0,1,0],"children":[%d]}' % (i + 1) if i + 1 < n else '{"translation":[0,1,0]}'
        for i in range(n)
    )
    s = '{"asset":{"version":"2.0"},"nodes":[' + nodes + "]"
    if skin_every:
        s += ',"skins":[{"joints":[%s]}]' % ",".join(str(i) for i in range(0, n, skin_every))
    return s + "}"


put("gltf_chain_160000.gltf", chain_gltf(160_000))
put("gltf_chain_160000_skin_every_100.gltf", chain_gltf(160_000, 100))
if BIG:
    put("gltf_chain_1000000.gltf", chain_gltf(1_000_000))
    put("gltf_chain_1000000_skin_every_1000.gltf", chain_gltf(1_000_000, 1000))
cyc = {"asset": {"version": "2.0"}, "nodes": [{"children": [1]}, {"children": [0]}]}
put("gltf_cycle.gltf", json.dumps(cyc))
put("gltf_deep_json.gltf", "[" * 100_000 + "]" * 100_000)
put("gltf_not_json.gltf", b"\xff" * 1000)

d = shared_sampler(1, 3, 1.0)
d.d["accessors"][0]["count"] = 0xFFFF_FFFF
put("glb_accessor_count_u32_max.glb", d.glb())
d = shared_sampler(1, 3, 1.0)
d.d["accessors"][1]["count"] = 0xFFFF_FFFE
put("glb_output_count_u32_max.glb", d.glb())
d = shared_sampler(1, 3, 1.0)
d.d["bufferViews"][0]["byteOffset"] = 0xFFFF_FFF0
put("glb_view_offset_past_buffer.glb", d.glb())
put("glb_bin_length_u32_max.glb", shared_sampler(1, 3, 1.0).glb(bin_len=0xFFFF_FFFF))
put("glb_total_length_u32_max.glb", shared_sampler(1, 3, 1.0).glb(total=0xFFFF_FFFF))
put("glb_total_length_under_12.glb", shared_sampler(1, 3, 1.0).glb(total=4))
good = shared_sampler(1, 3, 1.0).glb()
put("glb_truncated.glb", good[: len(good) - 9])
put("glb_json_10mb_of_spaces.glb", shared_sampler(1, 3, 1.0).glb(json_pad=10_000_000))
d = shared_sampler(1, 3, 1.0)
d.d["animations"][0]["channels"][0]["target"]["path"] = "bogus"
put("glb_unknown_channel_path.glb", d.glb())
d = shared_sampler(1, 3, 1.0)
d.d["animations"][0]["channels"][0]["target"]["node"] = 1 << 40
put("glb_channel_node_out_of_range.glb", d.glb())
d = shared_sampler(1, 3, 1.0)
d.d["buffers"] = [{"byteLength": 12, "uri": "../../../../etc/passwd"}]
put("gltf_uri_traversal.gltf", json.dumps(d.d))
d = Doc()
d.push("nodes", {"children": [1], "translation": [0, 1, 0]})
d.push("nodes", {"children": [2], "translation": [0, 2, 0]})  # a helper between joints
d.push("nodes", {"translation": [0, 3, 0]})
d.d["skins"] = [{"joints": [0, 2]}]
put("glb_helper_between_joints.glb", d.glb())
d = shared_sampler(1, 3, 3e38)
put("glb_key_times_3e38.glb", d.glb())
d = Doc()
for _ in range(3):
    d.push("nodes", {})
t = d.floats([0.0, 1e-9, 2e-9], "SCALAR")
v = d.floats([3e38] * 9, "VEC3")
d.push("animations", {
    "samplers": [{"input": t, "output": v}],
    "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
})
put("glb_values_3e38_tiny_key_step.glb", d.glb())
# The most samples a small document can ask for: keys x channels just under
# kineform::limits::MAX_SAMPLES (4,096 keys at 60 frames/s shared by 2,000
# channels: 8.19 million samples from about 150 KB), what bounds glTF's
# memory and time absolutely rather than per byte.
put("glb_4096_keys_x_2000_channels_at_sample_limit.glb",
    shared_sampler(1, 2000, 4095 / 60, keys=4096).glb())
put("glb_4096_keys_x_2100_channels_past_sample_limit.glb",
    shared_sampler(1, 2100, 4095 / 60, keys=4096).glb())
