"""SQL: one chunk per procedure, function, view, trigger or table, with one
schema-qualified symbol; GO batches respected; tables optional."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkers import ChunkOptions, chunk_file, chunk_file_result
from chunkers.sql import chunk_sql, qualified_name
from chunkers.text import split_lines
from tests.invariants import assert_invariants

FIXTURES = Path(__file__).parent.parent / "fixtures" / "sql"
WITH_OBJECTS = ["blitz_procs.sql", "mysql_routines.sql", "pg_functions.sql", "shop_schema.sql"]


def read(name: str) -> str:
    return (FIXTURES / name).read_text()


def layout(pieces):
    return [(p.chunk_type, p.start_line, p.end_line,
             [(s.name, s.kind, s.start_line, s.end_line) for s in p.symbols]) for p in pieces]


@pytest.mark.parametrize("name", WITH_OBJECTS)
def test_every_fixture_keeps_the_invariants_directly_and_through_the_registry(name):
    text = read(name)
    pieces = chunk_sql(name, text)
    assert pieces
    assert_invariants(pieces, text)
    result = chunk_file_result(name, text.encode())
    assert result.notes == ()
    assert_invariants(result.pieces, text)
    # one symbol per chunk, starting exactly on its CREATE/ALTER line
    lines = split_lines(text)
    for p in pieces:
        assert len(p.symbols) == 1
        assert lines[p.symbols[0].start_line - 1].lstrip().upper().startswith(("CREATE", "ALTER"))


def test_tsql_objects_go_batches_and_preamble():
    pieces = chunk_sql("blitz_procs.sql", read("blitz_procs.sql"))
    assert layout(pieces) == [
        # USE/SET preamble rides the first object; the #temp table and the
        # nested BEGIN...END are part of the procedure.
        ("sql_proc", 1, 34, [("dbo.sp_Blitz", "sql_procedure", 8, 32)]),
        # after the GO, the comment above the function rides the function
        ("sql_proc", 35, 46, [("dbo.fn_TopQueries", "sql_function", 36, 44)]),
        ("sql_table", 47, 54, [("dbo.BlitzLog", "sql_table", 47, 52)]),
        ("sql_proc", 55, 61, [("dbo.vw_RecentBlitzLog", "sql_view", 55, 59)]),
        # "CREATE PROCEDURE" inside a string is text, not an object
        ("sql_proc", 62, 71, [("dbo.trg_BlitzLog_Insert", "sql_trigger", 62, 69)]),
        # ALTER starts an object too; unqualified names stay as written
        ("sql_proc", 72, 76, [("sp_CleanupLog", "sql_procedure", 72, 75)]),
    ]


def test_a_blank_line_above_never_becomes_the_start_line():
    # Regression: `\s*` under MULTILINE matched across the newline, so the blank
    # line above CREATE was taken as the object's first line.
    text = "SELECT 1;\n\n\nCREATE PROCEDURE dbo.first AS SELECT 1;\n\n   \nCREATE VIEW dbo.second AS SELECT 2;\n"
    pieces = chunk_sql("two.sql", text)
    assert layout(pieces) == [
        ("sql_proc", 1, 6, [("dbo.first", "sql_procedure", 4, 4)]),
        ("sql_proc", 7, 7, [("dbo.second", "sql_view", 7, 7)]),
    ]
    assert_invariants(pieces, text)


def test_consolidated_schema_makes_every_table_a_chunk():
    text = read("shop_schema.sql")
    pieces = chunk_sql("shop_schema.sql", text)
    assert [p.chunk_type for p in pieces] == ["sql_table"] * 14
    assert [p.symbols[0].name for p in pieces] == [
        "public.customers", "public.addresses", "public.products", "public.categories",
        "public.product_categories", "public.orders", "public.order_lines", "public.payments",
        "public.shipments", "public.coupons", "public.audit_log", "sessions", "public.orders",
        "public.order_lines"]
    customers, _, products = pieces[:3]
    # SET preamble rides the first table; ALTER TABLE of the same table rides it
    assert (customers.start_line, customers.end_line) == (1, 12)
    assert "ALTER TABLE public.customers OWNER TO shop;" in customers.text
    assert "CREATE INDEX products_sku_idx" in products.text
    # without tables as boundaries there is no object at all: the registry's plain fallback applies
    assert chunk_sql("shop_schema.sql", text, ChunkOptions(split_sql_tables=False)) == []


def test_split_sql_tables_off_is_byte_identical_to_the_chunker_without_table_boundaries():
    text = read("blitz_procs.sql")
    pieces = chunk_sql("blitz_procs.sql", text, ChunkOptions(split_sql_tables=False))
    golden = (FIXTURES / "blitz_procs.no_table_split.json").read_text()
    assert json.dumps([p.to_dict() for p in pieces], indent=1, ensure_ascii=False) == golden
    assert "sql_table" not in {p.chunk_type for p in pieces}


@pytest.mark.parametrize("name", ["pg_functions.sql", "mysql_routines.sql"])
def test_split_sql_tables_changes_nothing_in_files_without_tables(name):
    text = read(name)
    on = chunk_sql(name, text, ChunkOptions(split_sql_tables=True))
    off = chunk_sql(name, text, ChunkOptions(split_sql_tables=False))
    assert [p.to_dict() for p in on] == [p.to_dict() for p in off]


def test_postgres_dollar_quoted_bodies():
    pieces = chunk_sql("pg_functions.sql", read("pg_functions.sql"))
    assert layout(pieces) == [
        ("sql_proc", 1, 18, [("billing.invoice_total", "sql_function", 3, 17)]),
        ("sql_proc", 19, 22, [("billing.open_invoices", "sql_view", 19, 22)]),
    ]


def test_mysql_delimiter_scripts():
    pieces = chunk_sql("mysql_routines.sql", read("mysql_routines.sql"))
    assert layout(pieces) == [
        ("sql_proc", 1, 12, [("shop.close_stale_carts", "sql_procedure", 3, 11)]),
        ("sql_proc", 13, 19, [("cart_size", "sql_function", 13, 19)]),
    ]


def test_an_oversized_object_splits_at_statements_into_parts():
    text = read("blitz_procs.sql")
    pieces = chunk_sql("blitz_procs.sql", text, ChunkOptions(type_max_chars=700))
    assert_invariants(pieces, text)
    parts = [p for p in pieces if p.symbols[0].name == "dbo.sp_Blitz"]
    # cuts fall on statement lines, the comment above a statement staying with it
    assert [(p.start_line, p.end_line) for p in parts] == [(1, 14), (15, 22), (23, 34)]
    assert [p.meta for p in parts] == [{"part": k, "parts": 3} for k in range(1, 4)]
    assert parts[1].header == "-- dbo.sp_Blitz (part 2/3)\n-- CREATE OR ALTER PROCEDURE [dbo].[sp_Blitz]\n"
    assert parts[1].body.startswith("    /* Results collect here;")
    assert parts[2].body.startswith("    IF @CheckUserDatabaseObjects = 1")
    assert all(len(p.body) <= 700 for p in parts)


def test_a_file_without_objects_falls_back_to_plain():
    text = read("seed_data.sql")
    assert chunk_sql("seed_data.sql", text) == []
    result = chunk_file_result("seed_data.sql", text.encode())
    assert [(p.chunk_type, p.start_line, p.end_line) for p in result.pieces] == [("plain", 1, 5)]


@pytest.mark.parametrize("raw, name", [
    ("[dbo].[sp_Blitz]", "dbo.sp_Blitz"),
    ('"public"."users"', "public.users"),
    ("`shop`.`carts`", "shop.carts"),
    ("[Sales] . [Order Lines]", "Sales.Order Lines"),
    ("sp_who3", "sp_who3"),
    ("db.dbo.t", "db.dbo.t"),
])
def test_qualified_names(raw, name):
    assert qualified_name(raw) == name


SOURCES = [read(n) for n in WITH_OBJECTS + ["seed_data.sql"]]
NOISE = st.sampled_from(["'", '"', "[", "]", "/*", "*/", "--", "$$", "BEGIN\n", "END\n", "GO\n", "\r\n",
                         "\nCREATE TABLE t (a int);\n", "\nCREATE PROC p AS\n", "x" * 7000, "(", ")"])


@st.composite
def mutated_source(draw):
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(NOISE) + text[at:] if draw(st.booleans()) else text[:at]
    return text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=mutated_source(), split_tables=st.booleans(), cap=st.sampled_from([400, 6000]))
def test_mutated_sql_stays_lossless_and_exact(source, split_tables, cap):
    options = ChunkOptions(split_sql_tables=split_tables, type_max_chars=cap)
    assert_invariants(chunk_file("m.sql", source.encode(), options), source.encode())
    text = source.replace("\r\n", "\n")
    direct = chunk_sql("m.sql", text, options)
    if direct:  # [] means "no object": the registry's plain fallback, checked above
        assert_invariants(direct, text)
