"""Eighty-ninth round: Snipe-IT, Monica (real code), OWASP's XVWA and nVisium's django.nV (built to leak) read held
out after the eighty-eighth round (figures: benchmarks/secrets_recall.md, round 89). Values made up where a secret
is meant."""

import time

from chunkers.redact import redact_text
from tests.chunkers.redact_asserts import GENERATED, round_tests


KEPT = [
    # a bound value after a secret's label: an expression (Vue's `:value`, `v-bind:value`, Angular's `[value]`)
    """<JetLabel for="password" :value="$t('Password')" />""",
    '<JetCheckbox v-model:checked="updateApiTokenForm.permissions" :value="permission" />',
    '<label for="api_token" v-bind:value="form.token" />',
    # a label of capitalised words joined by `-`
    "        'two_factor_secret'        => 'Two-Factor Code',",
    "        'two_factor_secret'        => 'Zwei-Faktor Code',",
    # a shouted placeholder run into a secret's word
    "MAIL_PASSWORD=YOURPASSWORD",
    "API_KEY=YOUR_API_KEY",
]


REDACTED_CASES = [
    # a literal string in the bound value, a generated value in a plain one
    ("""<JetLabel for="password" :value="'hunter2x'" />""", "hunter2x"),
    (f'<input name="password" value="{GENERATED}" />', GENERATED),
    # a capitalised word's lower-case suffix, a word with digits
    ("        'password' => 'Bender-in Code',", "Bender-in Code"),
    ("        'password' => 'Two-Factor C0de9',", "Two-Factor C0de9"),
    # a shouted word that names no secret after YOUR
    ("MAIL_PASSWORD=YOURHUNTER", "YOURHUNTER"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_run_of_value_attributes_is_read_in_linear_time():
    """Each `value=` looked lazily to the line's end for a secret's `name=`: 6,000 of them after a label took 4.2 s on
    round 88 (benchmarks/redact_worst_case.py's xml_value_run), 0.07 CPU s now; the bound is generous."""
    for text in ('<a for="password"' + ' value="x"' * 6_000 + " />", "<a" + ' value="x"' * 6_000 + ' name="pwd" />'):
        t = time.process_time()
        redact_text(text)
        assert time.process_time() - t < 1.0
