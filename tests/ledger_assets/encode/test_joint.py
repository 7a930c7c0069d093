"""One model pass, several vectors (encode/joint.py, the `joint` profile): the input's layout, and the real
MiniLM's pooled segments against the same texts encoded alone."""

from __future__ import annotations

import numpy as np

from ledger_assets.encode.embedder import embed_groups_with_cache, fetch_vectors
from ledger_assets.encode.joint import LEAD_TOKENS, Group, assemble, attention, joint_key
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.settings import EMBED_DIM, LedgerSettings

CLS, SEP = 101, 102
CODE = "def cancel_order(self, order_id):\n    return self.orders.pop(order_id, None) is not None\n"
HEAD = "Cancels the order. method cancel order of order book."


def test_a_lone_segment_spans_the_whole_input_as_the_model_reads_a_text_alone():
    one = assemble([[7, 8, 9]], CLS, SEP, max_tokens=256)
    assert one.ids == [CLS, 7, 8, 9, SEP] and one.spans == [(0, 5)] and one.positions == [0, 1, 2, 3, 4]
    cut = assemble([list(range(1000, 1400))], CLS, SEP, max_tokens=256)
    assert len(cut.ids) == 256 and cut.ids[-1] == SEP and cut.spans == [(0, 256)]


def test_the_code_comes_first_and_each_head_sits_where_it_would_alone():
    lead = list(range(2000, 2000 + LEAD_TOKENS + 20))  # longer than a head may be
    joint = assemble([lead, [5, 6], list(range(3000, 3300))], CLS, SEP, max_tokens=256)
    assert joint.spans[2] == (0, 256) and joint.ids[:3] == [CLS, 3000, 3001]  # the code as alone, truncated
    first = joint.spans[0]
    assert first == (256, 256 + LEAD_TOKENS + 1) and joint.ids[first[0]:first[1]] == [*lead[:LEAD_TOKENS], SEP]
    assert joint.positions[first[0]:first[1]] == list(range(1, LEAD_TOKENS + 2))
    assert joint.ids[joint.spans[1][0]:joint.spans[1][1]] == [5, 6, SEP]
    assert joint.positions[joint.spans[1][0]:] == [1, 2, 3]
    assert joint.segment == [0] * 256 + [1] * (LEAD_TOKENS + 1) + [2] * 3
    many = assemble([[9] * 40] * 5 + [[1, 2]], CLS, SEP, max_tokens=256)
    assert None not in many.spans[:3] and many.spans[3:5] == [None, None]  # past HEADS_TOKENS: no span
    assert many.spans[5] == (0, 4)


def test_the_code_sees_only_itself_and_each_head_itself_and_the_code():
    allowed = attention([0, 0, 0, 1, 1, 2], width=7)
    assert allowed[:3, :3].all() and not allowed[:3, 3:].any()  # the code: as if alone
    assert allowed[3, :5].all() and not allowed[3, 5]  # head 1: the code and itself, not head 2
    assert allowed[5, :3].all() and allowed[5, 5] and not allowed[5, 3:5].any()
    assert not allowed[:6, 6].any() and allowed[6].sum() == 1  # padding: no one sees it


def test_joint_vectors_from_the_real_model(embedder):
    alone = embedder.encode([CODE, HEAD, "Gets the spread. function spread."])
    # A group of one segment is the text alone, to the float.
    [single], alone_count = embedder.encode_joint([Group((CODE,))])
    assert alone_count == 0
    assert single.shape == (1, EMBED_DIM) and float(single[0] @ alone[0]) > 0.9999
    # A head read with its code: the code's vector is the code's alone; the head's has read the code.
    [pair], _ = embedder.encode_joint([Group((HEAD, CODE))])
    assert pair.shape == (2, EMBED_DIM) and np.allclose(np.linalg.norm(pair, axis=1), 1.0, atol=1e-5)
    assert float(pair[1] @ alone[0]) > 0.9999 and 0.5 < float(pair[0] @ alone[1]) < 0.9999
    # Heads do not see each other, and padding in a batch changes nothing.
    [three, _single], _ = embedder.encode_joint(
        [Group((HEAD, "Gets the spread. function spread.", CODE)), Group((CODE * 4,))])
    assert float(three[0] @ pair[0]) > 0.9999 and float(three[2] @ alone[0]) > 0.9999
    query = embedder.encode(["cancel an order"])[0]
    assert float(query @ pair[0]) > float(query @ three[1])  # the head still answers its own question
    # A lead past half the input is encoded alone, so every segment gets a vector.
    long_heads = [f"{HEAD} number {i} of many heads in one small type" for i in range(12)]
    [crowded], alone_count = embedder.encode_joint([Group((*long_heads, CODE))])
    lone = embedder.encode([long_heads[-1]])[0]
    assert crowded.shape == (13, EMBED_DIM) and float(crowded[11] @ lone) > 0.9999 and alone_count >= 1


def test_a_group_is_cached_under_its_key_and_computed_once(tmp_path, embedder):
    ledger = Ledger(LedgerSettings(home=str(tmp_path / "home")))
    groups = {joint_key([HEAD, CODE]): Group((HEAD, CODE))}
    assert embed_groups_with_cache(embedder, ledger.db, groups) == (1, 0)
    assert embed_groups_with_cache(embedder, ledger.db, groups) == (0, 0)
    key = next(iter(groups))
    stored = fetch_vectors(ledger.db, embedder.model_name, [f"{key}:0", f"{key}:1"])
    [fresh], _ = embedder.encode_joint([Group((HEAD, CODE))])
    assert np.allclose(stored[f"{key}:0"], fresh[0], atol=1e-5) and np.allclose(stored[f"{key}:1"], fresh[1], atol=1e-5)
    assert joint_key([HEAD, CODE]) != joint_key([CODE, HEAD]) != joint_key([HEAD + " ", CODE])


def test_a_head_reads_its_own_lines_of_the_code():
    """With `sees`, a head attends to [CLS] and its symbol's tokens of the code, not to the rest of the code."""
    joint = assemble([[5, 6], [7], list(range(3000, 3010))], CLS, SEP, max_tokens=256, sees=[(2, 5), None])
    assert joint.sees == {1: (3, 6)}  # the code's tokens 2..4 sit at 3..5 behind [CLS]
    allowed = attention(joint.segment, len(joint.ids), joint.sees)
    head1, head2 = joint.spans[0][0], joint.spans[1][0]
    assert allowed[head1, 0] and allowed[head1, 3:6].all() and not allowed[head1, 1:3].any()
    assert not allowed[head1, 6:12].any() and allowed[head2, :12].all()  # a head without `sees` reads all
    assert not allowed[:12, head1:].any()  # the code still sees only itself


def test_a_head_that_reads_its_lines_answers_for_its_own_symbol(embedder):
    from ledger_assets.ingest.pipeline import _code_span

    code = ("class Cart:\ndef total(self):\n    return sum(self.items)\n"
            "def cancel_order(self, order_id):\n    return self.orders.pop(order_id, None) is not None")
    heads = ("Gets the total. method total of cart.", "Cancels the order. method cancel order of cart.")
    sees = (_code_span(code, ["def total(self):", "return sum(self.items)"]),
            _code_span(code, ["def cancel_order(self, order_id):"]))
    assert code[sees[0][0]:sees[0][1]] == "def total(self):\n    return sum(self.items)"
    assert _code_span(code, ["def missing(self):"]) is None
    [own], _ = embedder.encode_joint([Group((*heads, code), sees)])
    [whole], _ = embedder.encode_joint([Group((*heads, code))])
    query = embedder.encode(["sum of the cart items", "cancel an order"])
    # Each head is closer to its own question and further from the other symbol's than when it reads all.
    assert float(query[0] @ own[0]) > float(query[0] @ whole[0])
    assert float(query[1] @ own[0]) < float(query[1] @ whole[0])
    assert float(own[2] @ whole[2]) > 0.9999  # the code's vector does not depend on what the heads read
