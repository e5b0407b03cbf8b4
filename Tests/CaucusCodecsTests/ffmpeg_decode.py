"""Decodes length-prefixed VP8 frames or Opus packets with FFmpeg's own decoders (PyAV), for
IndependentDecoderTests; prints what it measured as JSON: for VP8 the frames decoded, the last
one's size and mean colour (8-bit RGB); for Opus the packets decoded and the dominant frequency
of the left channel after the first 200 ms."""

import json
import struct
import sys

import av
import numpy


def packets(path):
    data = open(path, "rb").read()
    offset = 0
    while offset < len(data):
        (length,) = struct.unpack_from(">I", data, offset)
        yield data[offset + 4 : offset + 4 + length]
        offset += 4 + length


def vp8(path):
    context = av.CodecContext.create("vp8", "r")
    frames, last = 0, None
    for payload in packets(path):
        for frame in context.decode(av.Packet(payload)):
            frames += 1
            last = frame.to_ndarray(format="rgb24")
    red, green, blue = (float(last[:, :, channel].mean()) for channel in range(3))
    return {"frames": frames, "width": last.shape[1], "height": last.shape[0], "red": red, "green": green, "blue": blue}


def opus(path):
    context = av.CodecContext.create("opus", "r")
    context.sample_rate = 48000
    context.layout = "stereo"
    samples, count = [], 0
    for payload in packets(path):
        count += 1
        for frame in context.decode(av.Packet(payload)):
            array = frame.to_ndarray()
            samples.append(array[0] if array.ndim == 2 else array)
    left = numpy.concatenate(samples).astype(numpy.float64)[9600:]
    spectrum = numpy.abs(numpy.fft.rfft(left * numpy.hanning(len(left))))
    frequency = float(numpy.fft.rfftfreq(len(left), 1 / 48000)[int(spectrum.argmax())])
    return {"packets": count, "frequency": frequency}


if __name__ == "__main__":
    print(json.dumps({"vp8": vp8, "opus": opus}[sys.argv[1]](sys.argv[2])))
