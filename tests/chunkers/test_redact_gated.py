"""Lines that reach a secret only through a pattern gated by a cheap hint (_ACCESSOR_HINT, _EQUALS_HINT,
_ARROW_OPEN and _ARROW_HINT): each is still redacted, also inside a minified line's other code."""
import pytest

from chunkers.redact import redact_text

SECRET = "Zq8vN3xL0pR7tY2wK5mB4cD"


@pytest.mark.parametrize("line", [
    'public string ApiKey { get; init; } = "' + SECRET + '";',
    'if (password.equals("' + SECRET + '")) {',
    'if ("' + SECRET + '".equals(authToken)) {',
    'const getSecret = () => "' + SECRET + '";',
    'var a={b:function(){return 1}},c="x";if(password.equals("' + SECRET + '")){a()}',
    'var a={b:function(){return 1}},o={getToken:()=>"' + SECRET + '",c:2};',
])
def test_gated_line_is_redacted(line):
    out = redact_text(line)
    assert SECRET not in out and "[REDACTED]" in out
