"""The symbol lane's inputs: which chunk owns each symbol, and the sentence embedded for it.

Chunks come from the real chunkers over real-shaped fixtures; the end-to-end
behaviour (points carry the multivector, the lane ranks a member of a small
class first) is in test_search.py and test_local_index.py.
"""

from __future__ import annotations

from pathlib import Path

from chunkers import ChunkOptions, chunk_file
from ledger_assets.ingest.symbol_texts import (MAX_SYMBOL_CHARS, file_symbol_texts, gloss, owned_symbols, symbol_text,
                                                told_by_type)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def rows(path: Path, options: ChunkOptions = ChunkOptions()) -> list[dict]:
    pieces = chunk_file(path.name, path.read_bytes(), options)
    return [{"chunk_index": i, **p.to_dict()} for i, p in enumerate(pieces)]


def test_a_small_class_owns_all_its_members_in_its_one_chunk():
    chunks = rows(FIXTURES / "retrieval" / "BookingService.cs")
    owned = owned_symbols(chunks)
    by_chunk = {i: sorted(s["name"] for s in syms) for i, syms in owned.items()}
    service = next(c["chunk_index"] for c in chunks if "class BookingService" in c["text"])
    assert {"BookingService", "Book", "Cancel", "ForGuest"} <= set(by_chunk[service])
    # every symbol is owned exactly once
    names = [s["name"] for syms in owned.values() for s in syms]
    listed = {(s["name"], s["start_line"]) for c in chunks for s in c["symbols"]}
    assert len(names) == len(listed)


def test_a_split_type_gives_each_member_to_its_member_chunk_and_the_type_to_its_header():
    chunks = rows(FIXTURES / "retrieval" / "BookingService.cs", ChunkOptions(type_max_chars=400))
    owned = owned_symbols(chunks)
    types = {c["chunk_index"]: c["chunk_type"] for c in chunks}
    owner = {(s["name"], s["kind"]): types[i] for i, syms in owned.items() for s in syms}
    assert owner[("Cancel", "method")] == "cs_member"
    assert owner[("Book", "method")] == "cs_member"  # its first part
    assert owner[("BookingService", "constructor")] == "cs_member"
    assert owner[("BookingService", "class")] == "cs_class"  # the header, not the whole-type chunk
    assert "cs_class_full" not in {types[i] for i in owned}


def test_the_sentence_names_the_symbol_in_words_with_its_doc_and_declaration():
    chunks = rows(FIXTURES / "retrieval" / "BookingService.cs", ChunkOptions(type_max_chars=400))
    texts = file_symbol_texts(chunks)
    cancel = next(t for ts in texts.values() for t in ts if "method cancel " in t)
    # the name read as documentation, then kind, name and parent in words, then the doc sentence
    assert cancel.startswith("Cancels. method cancel of booking service: Cancels a reservation and records when it was cancelled.")
    assert "public bool Cancel(string reservationId)" in cancel
    assert len(cancel) <= MAX_SYMBOL_CHARS
    # a member without a doc comment still gets words + declaration
    for_guest = next(t for ts in texts.values() for t in ts if t.startswith("method for guest"))  # no verb: no gloss
    assert "IReadOnlyList<Reservation> ForGuest(string guest)" in for_guest


def test_a_documented_symbol_reads_one_body_line_an_undocumented_one_five():
    # issue 30, seventeenth round: the doc sentence says what the body lines would, and they are most of the
    # word-pieces a documented C# class's sentences cost (EFCore/Storage 193 -> 168 a chunk)
    chunks = rows(FIXTURES / "retrieval" / "BookingService.cs", ChunkOptions(type_max_chars=400))
    texts = [t for ts in file_symbol_texts(chunks).values() for t in ts]
    cancel = next(t for t in texts if "method cancel " in t)
    assert cancel.endswith("public bool Cancel(string reservationId) {")
    assert "TryGetValue" not in cancel
    for_guest = next(t for t in texts if t.startswith("method for guest"))
    assert "var found = new List<Reservation>(); foreach (var reservation in _reservations.Values)" in for_guest


def test_a_python_docstring_below_the_def_is_the_doc():
    chunks = rows(FIXTURES / "retrieval" / "invoices.py")
    texts = [t for ts in file_symbol_texts(chunks).values() for t in ts]
    assert texts and all(len(t) <= MAX_SYMBOL_CHARS for t in texts)
    documented = [t for t in texts if "function vat amount: Value added tax owed on a net amount" in t]
    assert documented, texts


def test_symbol_text_without_source_lines_falls_back_to_words():
    assert symbol_text({"name": "GetRelationalTypeMapping", "kind": "method", "parent": "Ns.TypeMappingSource"}, []) \
        == "Gets the relational type mapping. method get relational type mapping of type mapping source."


def test_gloss_reads_a_name_as_api_docs_word_it_or_not_at_all():
    assert gloss("property", "CommandText") == "Gets the command text"
    assert gloss("method", "CreateDbCommand") == "Creates the db command"
    assert gloss("method", "Dispose") == "Disposes"
    assert gloss("function", "apply_discount") == "Applies the discount"
    assert gloss("method", "IsNullable") == "Determines whether nullable"
    assert gloss("constructor", "RawSqlCommand") == "Initializes a new instance of the raw sql command class"
    assert gloss("class", "CharTypeMapping") == "Represents a char type mapping"
    assert gloss("interface", "IRelationalCommandBuilder") == "Defines a relational command builder"
    assert gloss("enum", "ScaffoldingOptions") == "The scaffolding options values"
    assert gloss("event", "StateChanged") == "Occurs when state changed"
    # no gloss rather than a wrong one: a name not led by a verb, a private field, an unknown kind
    assert gloss("function", "vat_amount") == ""
    assert gloss("method", "ToString") == ""
    assert gloss("field", "_commandText") == ""
    assert gloss("table", "Orders") == ""


def test_transformed_chunks_use_no_source_lines_and_huge_symbol_lists_are_capped():
    chunk = {"chunk_index": 0, "chunk_type": "config", "start_line": 1, "end_line": 300,
             "text": "\n".join(f"key{i}: {i}" for i in range(300)),
             "header": "", "symbols": [{"name": f"key{i}", "kind": "key", "parent": "", "start_line": 1,
                                         "end_line": 1} for i in range(200)]}
    texts = file_symbol_texts([chunk])[0]
    assert len(texts) == 48
    assert texts[0] == "key key 0."


def test_a_slice_of_a_minified_line_owns_a_few_symbols_not_dozens():
    # One 40 KB line of small functions: the chunker slices it, each slice lists dozens of symbols.
    line = "".join(f"function f{i}(a,b){{return a+b*{i}}};var v{i}={{k:{i}}};" for i in range(1200))
    pieces = chunk_file("bundle.js", line.encode(), ChunkOptions())
    chunks = [{"chunk_index": i, **p.to_dict()} for i, p in enumerate(pieces)]
    assert len(chunks) > 3 and all(c["start_line"] == c["end_line"] == 1 for c in chunks)
    assert max(len(c["symbols"]) for c in chunks) > 20
    owned = owned_symbols(chunks)
    assert owned and max(len(syms) for syms in owned.values()) == 8
    texts = file_symbol_texts(chunks)
    assert sum(map(len, texts.values())) == sum(map(len, owned.values())) <= 8 * len(chunks)
    # readable code keeps every symbol: a small class's chunk owns more than 8 over its many lines
    service = rows(FIXTURES / "retrieval" / "BookingService.cs")
    assert sum(map(len, owned_symbols(service).values())) == len({(s["name"], s["start_line"])
                                                                  for c in service for s in c["symbols"]})


HANDLERS_CS = """namespace Shop;

public class PingHandler
{
    private readonly IClock _clock;
    public PingHandler(IClock clock) => _clock = clock;

    public string Handle(string ping)
    {
        return ping + _clock.Now;
    }
}

public class LateHandler
{
    public string Handle(string ping)
    {
        var a = 1;
        var b = 2;
        var c = 3;
        return ping + a + b + c;
    }

    public LateHandler(IClock clock) => _clock = clock;
    private readonly IClock _clock;
}
"""


def test_a_member_its_types_sentence_quotes_whole_gets_no_sentence_of_its_own():
    """`pooled` leaves out a field, property or constructor whose declaration and last line are among the lines its
    class's sentence quotes (the class head and first body lines); members further down keep their sentences."""
    pieces = chunk_file("Handlers.cs", HANDLERS_CS.encode(), ChunkOptions())
    chunks = [{"chunk_index": i, **p.to_dict()} for i, p in enumerate(pieces)]
    kept = {}
    for idx, syms in owned_symbols(chunks).items():
        head = next(s["name"] for s in syms if s["kind"] == "class")
        kept[head] = sorted((s["name"], s["kind"]) for s in told_by_type(chunks[idx], syms))
    assert kept["PingHandler"] == [("Handle", "method"), ("PingHandler", "class")]  # _clock and the constructor told
    assert kept["LateHandler"] == [("Handle", "method"), ("LateHandler", "class"), ("LateHandler", "constructor"),
                                   ("_clock", "field")]
