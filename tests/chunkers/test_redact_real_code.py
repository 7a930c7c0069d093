"""Look-alikes from real code (site-packages) that the redactor destroyed, kept now, each with a secret twin that
stays redacted; and a secret's label without a blank judged as with one (`key=…` as `x key=…`), which the pre-check
property test found. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests


PAIRS = [
    # floor division and shifts in an assignment to a token-named variable are code
    ("        token_h = height // factor", f"        token_h = {GENERATED}", GENERATED),
    ("        token_w = width << shift", f"        token_w = {GENERATED}", GENERATED),
    # a module's CamelCase class as a type annotation
    ("    token_ordering: torch.Tensor", f"    token_ordering: {GENERATED}", GENERATED),
    ("    server_credentials: grpc.ServerCredentials", f"    server_credentials: {GENERATED}", GENERATED),
    # a tokenizer's special tokens between brackets or bars
    ('        self.image_token = "|SPEAKER|"', f'        self.image_token = "{GENERATED}"', GENERATED),
    ('    IMAGE_TOKEN = "]<]start of image[>["', f'    IMAGE_TOKEN = "{GENERATED}"', GENERATED),
    ('        entity_mask2_token="[MASK2]",', f'        entity_mask2_token="{GENERATED}",', GENERATED),
]

KEPT = [
    "key=abcdefghijklmnopqrstuvw",  # letters only after a bare label: no generated value
    f"sort_key={GENERATED}",  # a sort key is no secret whatever its value
]

REDACTED_CASES = [
    # random characters between bars are no special token
    ('token = "|xK9fP2qL8mN3vR7tQ|"', "xK9fP2qL8mN3vR7tQ"),
    # a label with `=` and no blank, as `x key=…` already was
    ("key=FAKE0123456789abcdefABCDEF", "FAKE0123456789abcdefABCDEF"),
    ("x key=FAKE0123456789abcdefABCDEF", "FAKE0123456789abcdefABCDEF"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_an_authorization_value_after_a_word_stays_redacted_alike_on_a_second_pass():
    # drawn by the pre-check property test: the first pass read the AKIA word as the header's scheme and redacted
    # the flag after it; the second read the word as the value
    from chunkers.redact import redact_text

    once = redact_text("Authorization: AKIAFAKEEXAMPLE00001mysql -phunter2 x")
    assert "hunter2" not in once and redact_text(once) == once
