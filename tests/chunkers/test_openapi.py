"""OpenAPI/Swagger: one chunk per operation and per schema, refs inlined, cycles safe."""

from pathlib import Path

import pytest

from chunkers import ChunkOptions, chunk_file, chunk_file_result
from chunkers.openapi import MAX_REF_DEPTH, chunk_structured
from tests.invariants import assert_invariants, assert_lossless

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openapi"

PETSTORE_V2_OPERATIONS = {
    "POST /pet/{petId}/uploadImage", "POST /pet", "PUT /pet", "GET /pet/findByStatus", "GET /pet/findByTags",
    "GET /pet/{petId}", "POST /pet/{petId}", "DELETE /pet/{petId}", "POST /store/order",
    "GET /store/order/{orderId}", "DELETE /store/order/{orderId}", "GET /store/inventory",
    "POST /user/createWithArray", "POST /user/createWithList", "GET /user/{username}", "PUT /user/{username}",
    "DELETE /user/{username}", "GET /user/login", "GET /user/logout", "POST /user",
}


def chunk(name: str, options: ChunkOptions = ChunkOptions()):
    text = (FIXTURES / name).read_text()
    result = chunk_structured(name, text, options)
    assert result.notes == ()
    assert_invariants(result.pieces, text)
    return result.pieces


def by_type(pieces, chunk_type):
    return [p for p in pieces if p.chunk_type == chunk_type]


def test_swagger2_petstore_has_one_chunk_per_operation_and_schema():
    pieces = chunk("petstore-v2.json")
    ops, schemas = by_type(pieces, "openapi_operation"), by_type(pieces, "openapi_schema")
    assert len(ops) + len(schemas) == 20 + 6
    assert {p.symbols[0].name for p in ops} == PETSTORE_V2_OPERATIONS
    assert {p.symbols[0].kind for p in ops} == {"openapi_operation"}
    assert [p.symbols[0].name for p in schemas] == ["ApiResponse", "Category", "Pet", "Tag", "Order", "User"]
    assert {(s.kind, s.parent) for p in schemas for s in p.symbols} == {("openapi_schema", "definitions")}
    # The rest (info, tags, securityDefinitions, externalDocs) is config.
    assert {p.chunk_type for p in pieces} == {"openapi_operation", "openapi_schema", "config"}


def test_operation_ranges_come_from_the_json_source():
    text = (FIXTURES / "petstore-v2.json").read_text()
    lines = text.split("\n")
    ops = {p.symbols[0].name: p for p in by_type(chunk("petstore-v2.json"), "openapi_operation")}
    get, post = ops["GET /pet/{petId}"], ops["POST /pet/{petId}"]
    assert lines[get.start_line - 1].strip() == '"/pet/{petId}": {'
    assert lines[post.start_line - 1].strip() == '"post": {'
    assert get.end_line + 1 == post.start_line
    span = "\n".join(lines[get.start_line - 1:get.end_line])
    assert '"operationId": "getPetById"' in span and "updatePetWithForm" not in span


def test_refs_are_inlined_into_the_operation():
    ops = {p.symbols[0].name: p for p in by_type(chunk("petstore-v2.json"), "openapi_operation")}
    text = ops["GET /pet/{petId}"].text
    assert text.startswith("<!-- Path: petstore-v2.json > GET /pet/{petId} -->\nGET /pet/{petId}\n")
    assert "$ref: '#/definitions/Pet'" in text
    assert "photoUrls:" in text and "example: doggie" in text  # Pet itself
    assert "$ref: '#/definitions/Category'" in text and "name: Category" in text  # a ref inside the ref
    assert [s.name for s in ops["GET /pet/{petId}"].symbols] == ["GET /pet/{petId}", "getPetById"]


def test_openapi3_petstore_yaml_ranges_follow_the_node_marks():
    pieces = chunk("petstore-v3.yaml")
    assert [(p.chunk_type, p.symbols[0].name if p.chunk_type != "config" else "", p.start_line, p.end_line)
            for p in pieces] == [
        ("config", "", 1, 10),
        ("openapi_operation", "GET /pets", 11, 43),
        ("openapi_operation", "POST /pets", 44, 63),
        ("openapi_operation", "GET /pets/{petId}", 64, 89),
        ("openapi_schema", "Pet", 90, 104),
        ("openapi_schema", "Pets", 105, 109),
        ("openapi_schema", "Error", 110, 120),
    ]
    pets = pieces[5]
    assert "$ref: '#/components/schemas/Pet'" in pets.text and "format: int64" in pets.text
    assert pieces[0].text.splitlines()[1:] == [
        "L2 openapi = 3.0.0", "L4 info:version = 1.0.0", "L5 info:title = Swagger Petstore",
        "L7 info:license:name = MIT", "L9 servers:0:url = http://petstore.swagger.io/v1",
    ]


def test_openapi31_cycles_are_marked_not_followed_and_path_parameters_merge():
    pieces = chunk("catalog-3.1.yaml")
    ops = {p.symbols[0].name: p for p in by_type(pieces, "openapi_operation")}
    assert set(ops) == {"GET /categories/{categoryId}", "DELETE /categories/{categoryId}", "POST categoryChanged"}
    assert ops["POST categoryChanged"].meta["webhook"] is True
    get = ops["GET /categories/{categoryId}"].text
    assert get.count("x-circular-ref: true") == 2  # parent, and children's items back to Category
    for name in ("GET /categories/{categoryId}", "DELETE /categories/{categoryId}"):
        assert "name: categoryId" in ops[name].text and "in: path" in ops[name].text
    schemas = {p.symbols[0].name: p for p in by_type(pieces, "openapi_schema")}
    assert set(schemas) == {"Category", "CategoryList"}
    assert "x-circular-ref: true" in schemas["Category"].text
    assert len(by_type(pieces, "openapi_operation")) + len(schemas) == 5


def test_deep_ref_chains_stop_at_the_depth_bound():
    schemas = "\n".join(
        f"    S{i}:\n      type: object\n      properties:\n        next:\n"
        f"          $ref: '#/components/schemas/S{i + 1}'" for i in range(30)
    )
    text = ("openapi: 3.0.3\ninfo: {title: Chain, version: '1'}\npaths:\n  /s:\n    get:\n      responses:\n"
            "        '200':\n          description: ok\n          content:\n            application/json:\n"
            "              schema: {$ref: '#/components/schemas/S0'}\n"
            f"components:\n  schemas:\n{schemas}\n    S30: {{type: string}}\n")
    pieces = chunk_structured("chain.yaml", text, ChunkOptions()).pieces
    get = next(p for p in pieces if p.chunk_type == "openapi_operation")
    assert f"$ref: '#/components/schemas/S{MAX_REF_DEPTH - 1}'" in get.text
    assert f"$ref: '#/components/schemas/S{MAX_REF_DEPTH}'" in get.text  # left as a bare ref
    assert f"$ref: '#/components/schemas/S{MAX_REF_DEPTH + 1}'" not in get.text
    assert len(by_type(pieces, "openapi_schema")) == 31
    assert_lossless(pieces, text)


def test_an_operation_over_the_cap_splits_into_parts_sharing_its_range():
    options = ChunkOptions(config_max_chars=800)
    parts = [p for p in chunk("petstore-v2.json", options)
             if p.chunk_type == "openapi_operation" and p.symbols[0].name == "GET /pet/{petId}"]
    n = len(parts)
    assert n > 1
    assert {(p.start_line, p.end_line) for p in parts} == {(parts[0].start_line, parts[0].end_line)}
    assert [p.meta["part"] for p in parts] == list(range(1, n + 1))
    assert parts[1].header == f"<!-- Path: petstore-v2.json > GET /pet/{{petId}} (part 2/{n}) -->\n"
    assert all(len(p.text) <= 800 for p in parts)


@pytest.mark.parametrize("text, note", [
    ("openapi: 3.0.0\ninfo: {title: x}\npaths:\n  - /a\n  - /b\n",
     "openapi parse failed, fell back to config: `paths` is a list, not a mapping"),
    ('{"swagger": "2.0", "paths": {"/a": {"get": {}}\n',
     "openapi parse failed, fell back to config: unclosed object"),
])
def test_a_malformed_document_falls_back_to_config_with_the_reason(text, note):
    name = "api.json" if text.startswith("{") else "api.yaml"
    result = chunk_file_result(name, text.encode())
    assert result.notes[0] == note
    assert {p.chunk_type for p in result.pieces} == {"config"}
    assert_lossless(result.pieces, text)


def alias_bomb(levels: int, late_first: bool = False) -> str:
    """Nine aliases of the list before, `levels` times: 9**levels leaves written in about 200 bytes a level."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    schemas = "\n".join("    " + line for line in lines)
    return f"openapi: 3.0.0\ninfo: {{title: x, version: '1'}}\npaths: {{}}\ncomponents:\n  schemas:\n{schemas}\n"


def test_yaml_aliases_that_expand_past_the_bound_are_read_as_config():
    """A "billion laughs" of aliases (9**9 leaves from 2 KB) was copied node by node until memory ran out; past
    MAX_EXPANSION times the nodes the document writes, it is read as config, which lists a shared subtree once."""
    text = alias_bomb(5)                                  # 59,049 leaves
    result = chunk_file_result("api.yaml", text.encode())
    assert result.notes[0].startswith("openapi parse failed, fell back to config: YAML aliases expand it past ")
    assert {p.chunk_type for p in result.pieces} == {"config"}
    assert_lossless(result.pieces, text)
    few = alias_bomb(1)                                   # nine aliases of one list: an ordinary document
    assert chunk_file_result("api.yaml", few.encode()).notes == ()


def test_a_document_without_openapi_key_is_plain_config():
    result = chunk_file_result("docker-compose.yml", b"services:\n  web:\n    image: nginx\n")
    assert result.notes == ()
    assert [p.body for p in result.pieces] == ["L3 services:web:image = nginx"]


@pytest.mark.parametrize("name", ["petstore-v2.json", "petstore-v3.yaml", "catalog-3.1.yaml"])
def test_every_line_is_covered_through_chunk_file(name):
    data = (FIXTURES / name).read_bytes()
    result = chunk_file_result(name, data)
    assert result.notes == ()
    assert_lossless(result.pieces, data)
    assert chunk_file(name, data) == chunk_file(name, data)  # deterministic
