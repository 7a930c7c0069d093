"""Thirty-third round: pre-commit/pre-commit-hooks (held out in the thirty-second round, development from this one)
held four spaced ini lines the redactor missed: `aws_secret_access_key = z2rp…` (an AWS credentials file's line,
blanks around `=`, 40 small letters and digits beginning with a letter). The spaced ini form kept a value that is one
identifier-shaped run unless looks_random said it was generated, and looks_random reads the letter runs of such a
value as words; unspaced (`aws_secret_access_key=z2rp…`) or digit-led it was redacted already. Found now: one case of
letters and digits, 24 characters or more, no separator, digits in four places or more (not hex alone). Kept: a
placeholder, an empty value, a reference, prose, a name, a short identifier with digits. And the ini form's value
followed by a long run of blanks before a `#` is read in linear time. Values are made up here."""

from tests.chunkers.redact_asserts import lines_test, pair_test, round_tests

AWS = "q7rmxe2kw9tbn4vzl0ds8hcyf3pgj6uao1wzk5ne"  # 40 small letters and digits, a letter first
AWS_UP = "Q7RMXE2KW9TBN4VZL0DS8HCYF3PGJ6UAO1WZK5NE"

# (look-alike, its secret twin, the twin's secret)
PAIRS = [
    ("aws_secret_access_key = your_aws_secret_access_key", f"aws_secret_access_key = {AWS}", AWS),
    ("aws_secret_access_key =", f"[default]\naws_secret_access_key = {AWS}", AWS),
    ("aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}", f"aws_secret_access_key ={AWS}", AWS),
    ("aws_secret_access_key = the key from the IAM console, see step 2", f"aws_secret_access_key= {AWS}", AWS),
    ("secret_key = utf8str2latin1conv3x", f"secret_key = {AWS_UP}", AWS_UP),
    ("password = aws_secret_access_key", f"+password = {AWS}", AWS),
]

KEPT = [
    "aws_secret_access_key = xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "aws_secret_access_key = aws_secret_access_key",
    "aws_secret_access_key = secret_access_key_2020_v2_rotation_3_x9",
    "token = arg1",
    "api_key = abcdefghijklmnopqrstuvwxyzabcdefghijklmn",
    "secret = deadbeef0123456789abcdef0123456789abcdef",  # 40 hex digits: a git sha's form, kept as on main
]

REDACTED_CASES = [
    (f"aws_secret_access_key = {AWS}", AWS),
    (f"AWS_SECRET_ACCESS_KEY = {AWS_UP}", AWS_UP),
]

LINES = [
    ("# Some comment here\n[default]\naws_access_key_id = AKIAEXAMPLEEXAMPLE12\n"
     f"aws_secret_access_key = {AWS}\n\n[production]\nregion = us-east-1\n", AWS),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
test_only_the_values_line_changes = lines_test(LINES)


def test_an_ini_lines_value_followed_by_a_run_of_blanks_is_read_in_linear_time():
    # _INI_LINE's value was lazy before `[ \t]*\r?$`: from each blank of a run after the value it read the run to its
    # end again (`db_password = x`, 20,000 blanks, `# c`: 4.3 CPU s for the pattern on main); now greedy, the same
    # matches (benchmarks/secrets_recall.md, the thirty-third round)
    import time

    from chunkers import redact, secret_lines

    line = "db_password = x" + " " * 20_000 + "# c"
    secret_lines._redact_line.cache_clear()
    t = time.process_time()
    assert redact.redact_text(line) == line  # kept, as on main
    assert time.process_time() - t < 0.5
    for text, value in [("db_password = s3cr3t-x  ", "s3cr3t-x"), ("db_password = s3cr3t-x \r", "s3cr3t-x"),
                        ("db_password = a\r\r", "a\r"), ("db_password = a\r  ", "a\r"), ("db_password = a b\r\n", "a b")]:
        assert secret_lines._INI_LINE.match(text).group("value") == value  # as the lazy value on main
