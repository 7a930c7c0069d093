"""Sixty-ninth round: a draw.io diagram's compressed drawing (vulnado's, read held out after the sixty-seventh round)
is a document's data, not a secret (figures: benchmarks/secrets_recall.md, round 69)."""

import base64
import zlib

from chunkers import chunk_file_result


def _deflated(data: bytes) -> str:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return base64.b64encode(c.compress(data) + c.flush()).decode()


def _body(name: str, text: str) -> str:
    return "\n".join(piece.body for piece in chunk_file_result(name, text.encode()).pieces)


def test_a_draw_io_diagram_s_compressed_drawing_is_kept():
    drawing = _deflated(b"%3CmxGraphModel%20dx%3D%22950%22%3E" + bytes(range(256)) * 4)
    body = _body("docs/arch.xml", f'<mxfile host="app.diagrams.net"><diagram name="Page-1" id="a1">{drawing}'
                                  '</diagram></mxfile>')
    assert drawing[:60] in body, body


def test_a_compressed_value_that_is_no_markup_is_judged_as_before():
    secret = _deflated(b"Zq8fK2pQx7Lm9NbVw3Rt" * 3 + bytes(range(200)))
    body = _body("config/app.xml", f"<config><seed>{secret}</seed></config>")
    assert secret[:40] not in body and "[REDACTED]" in body, body
