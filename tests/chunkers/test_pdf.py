"""PDF: pages grouped into pdf_pages chunks; bad PDFs give placeholders or skip reasons."""

import io
import threading
import zlib

from pypdf import PdfReader, PdfWriter

import chunkers.pdf as pdf_chunker
from chunkers import ChunkOptions, chunk_file, chunk_file_result
from chunkers.pdf import chunk_pdf


def _escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list) -> bytes:
    """A real PDF: each page is text (lines split on '\\n'), None (empty), "IMAGE" (an image, no text), raw
    content bytes (compressed), or ("FORM", content, draws): a form XObject of that content drawn `draws` times."""
    objs = {1: b"<< /Type /Catalog /Pages 2 0 R >>", 3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    kids, n = [], 4
    for page in pages:
        page_id, content_id, n = n, n + 1, n + 2
        resources = "/Font << /F1 3 0 R >>"
        if page == "IMAGE":
            image_id, n = n, n + 1
            pixels = bytes([200, 30, 30] * 16)
            objs[image_id] = (b"<< /Type /XObject /Subtype /Image /Width 4 /Height 4 /ColorSpace /DeviceRGB "
                              b"/BitsPerComponent 8 /Length %d >>\nstream\n" % len(pixels) + pixels + b"\nendstream")
            resources += f" /XObject << /Im1 {image_id} 0 R >>"
            stream = b"q 200 0 0 200 72 500 cm /Im1 Do Q"
        elif page is None:
            stream = b""
        elif isinstance(page, tuple):
            _, content, draws = page
            form_id, n = n, n + 1
            packed = zlib.compress(content)
            objs[form_id] = (b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 3 0 R "
                             b">> >> /Filter /FlateDecode /Length %d >>\nstream\n" % len(packed) + packed + b"\nendstream")
            resources += f" /XObject << /X1 {form_id} 0 R >>"
            stream = b"/X1 Do\n" * draws
        elif isinstance(page, bytes):
            packed = zlib.compress(page)
            objs[content_id] = (b"<< /Filter /FlateDecode /Length %d >>\nstream\n" % len(packed) + packed
                                + b"\nendstream")
        else:
            ops = ["BT /F1 9 Tf 11 TL 36 770 Td"] + [f"({_escape(line)}) Tj T*" for line in page.split("\n")] + ["ET"]
            stream = "\n".join(ops).encode("latin-1")
        if not isinstance(page, bytes):
            objs[content_id] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
        objs[page_id] = (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << {resources} >> "
                         f"/Contents {content_id} 0 R >>").encode()
        kids.append(page_id)
    objs[2] = f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>".encode()
    out, offsets = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"), {}
    for i in sorted(objs):
        offsets[i] = len(out)
        out += b"%d 0 obj\n" % i + objs[i] + b"\nendobj\n"
    xref, size = len(out), max(objs) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    out += b"".join(b"%010d 00000 n \n" % offsets[i] for i in range(1, size))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


def page_text(number: int, lines: int = 25) -> str:
    return "\n".join(f"Section {number}.{k}: the ledger stores chunk {k} of page {number}." for k in range(lines))


def encrypt(data: bytes, user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password="owner-pw", algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def test_pages_are_grouped_with_a_path_header_and_page_numbers():
    data = make_pdf([page_text(n) for n in range(1, 7)])
    result = chunk_pdf("docs/spec.pdf", data, ChunkOptions(pdf_group_chars=3000))
    assert result.skip_reason == "" and result.notes == ()
    pieces = result.pieces
    assert [(p.chunk_type, p.start_line, p.end_line, p.meta) for p in pieces] == [
        ("pdf_pages", 1, 2, {"start_page": 1, "end_page": 2}),
        ("pdf_pages", 3, 4, {"start_page": 3, "end_page": 4}),
        ("pdf_pages", 5, 6, {"start_page": 5, "end_page": 6}),
    ]
    assert pieces[1].header == "<!-- Path: docs/spec.pdf, pages 3-4 -->\n"
    assert pieces[1].text.startswith(pieces[1].header + "<!-- page 3 -->\nSection 3.0: the ledger stores chunk 0")
    assert "<!-- page 4 -->\nSection 4.0:" in pieces[1].text
    assert all(len(p.body) <= 3000 + 40 for p in pieces)


def test_empty_and_image_pages_keep_their_place():
    data = make_pdf([page_text(1, 3), None, "IMAGE", page_text(4, 3)])
    [piece] = chunk_pdf("mixed.pdf", data, ChunkOptions()).pieces
    assert (piece.start_line, piece.end_line) == (1, 4)
    assert "<!-- page 2 -->\n(empty page)" in piece.text
    assert "<!-- page 3 -->\n(no text on this page: images only)" in piece.text
    assert "Section 4.2:" in piece.text


def test_an_image_only_pdf_yields_one_placeholder_chunk():
    result = chunk_file_result("scans/contract.pdf", make_pdf(["IMAGE", "IMAGE", None]))
    assert result.skip_reason == ""
    [piece] = result.pieces
    assert piece.text == (
        "<!-- Path: scans/contract.pdf, pages 1-3 -->\n"
        "(no extractable text: 3 pages, 2 with images; a scanned or image-only PDF, OCR it to index its content)"
    )
    assert piece.meta == {"start_page": 1, "end_page": 3, "placeholder": "no_text"}


def test_an_oversized_single_page_splits_into_parts():
    text = page_text(1, 70)
    pieces = chunk_pdf("big.pdf", make_pdf([text, page_text(2, 2)]), ChunkOptions(pdf_group_chars=1500)).pieces
    parts = [p for p in pieces if p.start_line == 1]
    n = len(parts)
    assert n >= 3
    assert [p.header for p in parts] == [f"<!-- Path: big.pdf, page 1 (part {k}/{n}) -->\n" for k in range(1, n + 1)]
    assert [(p.meta["part"], p.meta["parts"], p.end_line) for p in parts] == [(k, n, 1) for k in range(1, n + 1)]
    assert "\n".join(p.body for p in parts) == text  # nothing lost between parts
    assert pieces[-1].header == "<!-- Path: big.pdf, page 2 -->\n"


def test_an_encrypted_pdf_is_skipped_with_the_reason():
    data = encrypt(make_pdf([page_text(1, 3)]), user_password="open-sesame")
    result = chunk_file_result("secret.pdf", data)
    assert result.pieces == []
    assert result.skip_reason == "encrypted PDF: a password is required"


def test_a_pdf_encrypted_with_an_empty_user_password_is_read():
    data = encrypt(make_pdf([page_text(1, 3)]), user_password="")
    [piece] = chunk_file("owner-locked.pdf", data)
    assert "Section 1.2: the ledger stores chunk 2 of page 1." in piece.text


def test_truncated_and_corrupt_pdfs_give_a_skip_reason_not_an_exception():
    data = make_pdf([page_text(1), page_text(2)])
    truncated = chunk_file_result("cut.pdf", data[: len(data) // 2])
    assert truncated.pieces == [] and truncated.skip_reason.startswith("unreadable PDF (")
    garbage = chunk_file_result("junk.pdf", b"%PDF-1.7\n" + bytes(range(256)) * 8)
    assert garbage.pieces == [] and garbage.skip_reason.startswith("unreadable PDF (")
    assert chunk_file_result("renamed.pdf", b"PK\x03\x04 a zip").skip_reason == "not a PDF (no %PDF header)"


def test_the_time_per_file_is_bounded():
    data = make_pdf([page_text(n, 3) for n in range(1, 5)])
    result = chunk_pdf("slow.pdf", data, ChunkOptions(pdf_timeout_s=0))
    assert result.notes == ("pdf timed out after 0s at page 1 of 4",)
    [piece] = result.pieces
    assert (piece.start_line, piece.end_line, piece.meta["placeholder"]) == (1, 4, "timeout")
    assert piece.body == "(pages 1-4 not read: text extraction exceeded 0s)"


TEXT_OPS = b"BT /F1 12 Tf 72 700 Td (the same words again ) Tj ET\n"


def test_a_form_drawn_again_and_again_is_counted_and_cut_the_same_way_each_time(monkeypatch):
    # pypdf parses a form again at each draw: 400 draws of 2,000 text operators are a 1.2 KB file that took
    # 26 CPU s and gave 4 MB of text, stopped only by a deadline on the clock (so cut at a different page on a
    # loaded machine). The budget here is small to keep the test quick; the count is the same at any size.
    monkeypatch.setattr(pdf_chunker, "PDF_WORK_MIN", 400_000)
    data = make_pdf([page_text(1, 3), ("FORM", TEXT_OPS * 2000, 400), page_text(3, 3)])
    first = chunk_pdf("forms.pdf", data)
    assert first == chunk_pdf("forms.pdf", data)
    read, cut = first.pieces
    assert "Section 1.2:" in read.text and (read.start_line, read.end_line) == (1, 1)
    assert (cut.start_line, cut.end_line, cut.meta["placeholder"]) == (2, 3, "work_budget")
    assert cut.body.startswith("(pages 2-3 not read: the file's content passed its work budget, 0.4 MB parsed")
    assert first.notes == ("pdf content passed its work budget (0.4 MB parsed) at page 2 of 3",)


def test_a_stream_that_inflates_past_the_budget_is_not_parsed_and_leaves_no_worker_behind():
    # 8 MB of text operators in 26 KB: read for 35 CPU s, past the 20 s deadline by a thread left running.
    data = make_pdf([page_text(1, 3), TEXT_OPS * 160_000])
    assert len(data) < 40_000
    result = chunk_pdf("bomb.pdf", data)
    assert [p.meta.get("placeholder") for p in result.pieces] == [None, "work_budget"]
    assert result.notes[0].startswith("pdf content passed its work budget (4.") and "at page 2 of 2" in result.notes[0]
    assert not [t for t in threading.enumerate() if t.name == "pdf:bomb.pdf"]


def test_a_page_whose_text_cannot_be_extracted_keeps_its_place_and_its_reason():
    nested = b"BT /F1 12 Tf " + b"[" * 5000 + b"]" * 5000 + b" TJ ET"  # pypdf: RecursionError
    result = chunk_pdf("damaged.pdf", make_pdf([page_text(1, 3), nested, page_text(3, 3)]))
    [piece] = result.pieces
    assert "Section 1.2:" in piece.text and "Section 3.2:" in piece.text
    assert "<!-- page 2 -->\n(no text extracted from this page: RecursionError: " in piece.text
    assert result.notes[0].startswith("pdf page 2: no text extracted (RecursionError: ")
    # Not called a scan when no page gave text because none could be read.
    only = chunk_pdf("damaged.pdf", make_pdf([nested]))
    assert only.pieces[0].body.startswith("(no text extracted from this page: RecursionError")
