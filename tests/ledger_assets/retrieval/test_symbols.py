"""Symbol lookup on a real chunked repo: schema-qualified SQL names, and the chunk that holds a declaration."""

from __future__ import annotations

import json
import logging
import shutil

import pytest

from ledger_assets.cli import main
from ledger_assets.ingest import pipeline
from ledger_assets.retrieval.symbols import ToolInputError, symbol_lookup
from tests.conftest import FIXTURES, serve_rows

LOG = logging.getLogger("test-symbols")

SQL = """CREATE TABLE [dbo].[Orders]
(
    OrderID INT PRIMARY KEY,
    Total MONEY NOT NULL
);
GO

CREATE VIEW dbo.OpenOrders
AS
SELECT OrderID, Total FROM dbo.Orders WHERE Total > 0;
GO

CREATE PROCEDURE [dbo].[GetOrders]
AS
BEGIN
    SELECT OrderID, Total FROM dbo.Orders;
END;
GO
"""


def _long_method_class() -> str:
    """A class whose header holds fields, then a 240-line method the C# chunker splits into parts."""
    body = "\n".join(f"            total += Step{i}(input, {i}); // keep the running total for step {i}"
                     for i in range(240))
    return ("namespace Billing\n{\n    public class Ledger\n    {\n        private int _count;\n"
            "        private readonly string _name = \"ledger\";\n\n"
            "        /// <summary>Sums every step.</summary>\n"
            "        public int Reconcile(int input)\n        {\n            var total = 0;\n"
            f"{body}\n            return total;\n        }}\n\n"
            "        private int Step0(int input, int i) => input + i;\n    }\n}\n")


@pytest.fixture
def chunked(ledger, git_repo):
    git_repo.write("db/orders.sql", SQL)
    git_repo.write("src/Ledger.cs", _long_method_class())
    shutil.copy(FIXTURES / "csharp" / "PaymentGatewayClient.cs", git_repo.path / "src" / "PaymentGatewayClient.cs")
    git_repo.commit("first")
    ledger.registry.add(git_repo.path, "shop")
    pipeline.snapshot_stage(ledger, "shop", "run", LOG)
    pipeline.chunk_stage(ledger, "shop", "run", LOG)
    serve_rows(ledger, "shop")
    return ledger


@pytest.mark.parametrize("name", ["dbo.Orders", "[dbo].[Orders]", "Orders", "DBO.ORDERS", "\"dbo\".\"Orders\""])
def test_a_table_is_found_by_its_qualified_bracketed_and_bare_names(chunked, name):
    [table] = [m for m in symbol_lookup(chunked, name) if m.kind == "sql_table"]
    assert (table.file_path, table.chunk_type, table.start_line) == ("db/orders.sql", "sql_table", 1)


def test_procedures_and_views_resolve_by_any_spelling(chunked):
    for name in ("dbo.GetOrders", "[dbo].[GetOrders]", "GetOrders", "getorders"):
        assert [(m.kind, m.chunk_type) for m in symbol_lookup(chunked, name)] == [("sql_procedure", "sql_proc")]
    assert [m.kind for m in symbol_lookup(chunked, "OpenOrders")] == ["sql_view"]
    assert symbol_lookup(chunked, "sales.GetOrders") == []  # another schema
    assert symbol_lookup(chunked, "Order") == []  # still exact, not a prefix


def test_a_split_method_points_at_its_declaration_and_lists_its_parts(chunked):
    [m] = symbol_lookup(chunked, "Ledger.Reconcile")
    assert m.chunk_type == "cs_member"
    assert m.chunk_start_line <= m.start_line <= m.chunk_end_line  # the part that holds `public int Reconcile(`
    assert m.other_parts, "a 240-line method is split into parts"
    starts = [a for _, a, _ in m.other_parts]
    assert starts == sorted(set(starts)) and starts[0] == m.chunk_end_line + 1  # each part once, in order
    assert m.other_parts[-1][2] == m.end_line  # the last part ends where the method ends
    # A field declared in the type's header still points at the header, the shortest chunk holding it.
    [field] = symbol_lookup(chunked, "Ledger._count")
    assert field.chunk_type == "cs_class" and field.other_parts == ()


def test_an_unsplit_member_has_no_other_parts(chunked):
    [m] = symbol_lookup(chunked, "PaymentGatewayClient.AuthorizeAsync")
    assert (m.chunk_type, m.chunk_start_line, m.chunk_end_line, m.other_parts) == ("cs_member", 44, 67, ())


def test_the_cli_shows_qualified_sql_names_and_parts(chunked, monkeypatch, capsys):
    monkeypatch.setenv("LEDGER_HOME", str(chunked.settings.home_path))
    assert main(["symbol", "[dbo].[GetOrders]", "--format", "json"]) == 0
    [hit] = json.loads(capsys.readouterr().out)
    assert (hit["name"], hit["file_path"]) == ("dbo.GetOrders", "db/orders.sql")
    assert main(["symbol", "Reconcile"]) == 0
    assert "+ parts L" in capsys.readouterr().out
    with pytest.raises(ToolInputError):
        symbol_lookup(chunked, "[dbo].[Orders")
