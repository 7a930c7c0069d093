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


# A long line's _QUOTED_ASSIGN and _ALT_ASSIGN are tried only from the starts _named_starts gives (the run of name
# characters before a secret word, and the quote before it): the secret is still found amid a minified line's code,
# and every line gives what the whole-line substitution gives.
FILLER = "var a={b:function(c){return c.d(e)},f:[1,2,3]};" * 60  # 2,880 characters, no secret word


# Every long-line gate below: a secret still found amid a minified line's code.
LONG_LINES = [
    # _QUOTED_ASSIGN and _ALT_ASSIGN from _named_starts
    FILLER + 'o.apiKey="' + SECRET + '";' + FILLER,
    FILLER + '{"client_secret": "' + SECRET + '"}' + FILLER,
    FILLER + "x.y.db_password='" + SECRET + "'," + FILLER,
    FILLER + 'const token = process.env.TOKEN || "' + SECRET + '";' + FILLER,
    FILLER + 'var password=x?"' + SECRET + '":y;' + FILLER,
    FILLER + 'n.secret=e.s??"' + SECRET + '",' + FILLER,
    # _CONN_STRING from _conn_starts
    FILLER + 'var c="Server=db.local;User Id=sa;Password=' + SECRET + ';";' + FILLER,
    FILLER + "s = 'Data Source=x; Password =" + SECRET + "; Encrypt=true'" + FILLER,
    # _ARROW_HINT and _EQUALS_HINT's named form from _named_starts
    FILLER + 'var o={getToken:()=>"' + SECRET + '",c:2};' + FILLER,
    FILLER + 'if(password.equals("' + SECRET + '")){a()}' + FILLER,
    FILLER + 'if("' + SECRET + '".equals(authToken)){a()}' + FILLER,
    # _QUOTED_COMPARED behind _COMPARED_HINT
    FILLER + 'if("' + SECRET + '"===x.password){a()}' + FILLER,
    # _ENV_ASSIGN behind its heads' hints
    FILLER + "x=`docker run -e DB_PASSWORD=" + SECRET + " img`;" + FILLER,
    FILLER + "s='helm install --set-string db.password=" + SECRET + "';" + FILLER,
    FILLER + 'c="export API_TOKEN=' + SECRET + '";' + FILLER,
]


@pytest.mark.parametrize("line", LONG_LINES)
def test_long_line_secret_is_redacted(line):
    out = redact_text(line)
    assert SECRET not in out and "[REDACTED]" in out


@pytest.mark.parametrize("line", [
    FILLER + 'o.apiKey="' + SECRET + '";' + FILLER,
    FILLER + 'a.keyboard="x",b.monkey=c.key||"' + SECRET + '",' + FILLER + '"token":"' + SECRET + '"',
    FILLER + "p=e.passwordField;q=r.tokens.map(s=>s.key);" + FILLER,  # secret words, no match: nothing changes
    "\u017f" + FILLER + 'o.apiKey="' + SECRET + '";',  # a letter (?i) folds to ASCII: searched whole
    'o.apiKey="' + SECRET + '";',  # short: searched whole
])
def test_named_starts_give_the_whole_line_substitution(line):
    from chunkers import secret_lines as r
    for pattern, repl in ((r._QUOTED_ASSIGN, r._quoted), (r._ALT_ASSIGN, r._alt_assign)):
        assert r._sub_at(pattern, repl, line, r._named_starts(line)) == pattern.sub(repl, line)


def test_named_starts_skip_short_and_folded_lines():
    from chunkers import secret_lines as r
    assert r._named_starts('o.apiKey="' + SECRET + '";') is None
    assert r._named_starts("\u212a" + FILLER) is None
    assert r._named_starts(FILLER) == []  # no secret word: nothing tried
    line = FILLER + "x.y.db_password='" + SECRET + "'"
    at = line.index("x.y.db_password")
    assert r._named_starts(line) == [(at - 1, at + len("x.y.db_"))]


# ... and _CONN_STRING only from the starts _conn_starts gives (a name run before a `=` in the text before a `;` that
# a part's name and `=` follow).
# (its long lines: LONG_LINES)


@pytest.mark.parametrize("line", [
    FILLER + 'var c="Server=db.local;User Id=sa;Password=' + SECRET + ';";' + FILLER,
    FILLER + "for(i=0;i<n;i++){a=b;c=d&amp;e=f;g=h&k=l}" + FILLER,  # code's `=` ... `;` pairs: the same matches
    "x=1;y=2;" + FILLER,  # a match at the line's start
    'var c="Server=db;Password=' + SECRET + '";',  # short: searched whole
])
def test_conn_starts_give_the_whole_line_substitution(line):
    from chunkers import secret_lines as r
    assert r._sub_at(r._CONN_STRING, r._conn_string, line, r._conn_starts(line)) == r._CONN_STRING.sub(
        r._conn_string, line)


def test_conn_starts_skip_lines_without_a_join():
    from chunkers import secret_lines as r
    assert r._conn_starts("a=1;" * 3) is None  # short
    assert r._conn_starts("f(a=1); " * 400) == []  # no part's name and `=` after any `;`
    line = FILLER.replace(";", ",") + 'x="Server=db;Password=' + SECRET + '"'
    at = line.index("Server")
    assert r._conn_starts(line) == [(at, at + len("Server") - 1)]


# ... and a long line's _ARROW_HINT and _EQUALS_HINT's named form are searched from those starts too.
# (its long lines: LONG_LINES)


@pytest.mark.parametrize("line", [
    FILLER + 'var o={getToken:()=>"' + SECRET + '",c:2};',
    FILLER + 'if(x.password.equals("' + SECRET + '")){a()}',
    FILLER + "var t=e.token,k=()=>t.key;s.secret.equals(k());",  # secret words, neither hint's form: not found
])
def test_found_at_gives_the_whole_line_search(line):
    from chunkers import secret_lines as r
    for pattern in (r._ARROW_HINT, r._EQUALS_NAMED_HINT, r._QUOTED_NEED):
        assert r._found_at(pattern, line, r._named_starts(line)) == (pattern.search(line) is not None)


# ... and a long line's _QUOTED_COMPARED runs only where _COMPARED_HINT (its operator and name) is found.
# (its long line: LONG_LINES)


def test_compared_hint_skips_only_lines_without_a_match():
    from chunkers import secret_lines as r
    line = FILLER + 'if(a.token=="' + SECRET + '"||b!==c.secret(d)){e("password")}' + FILLER
    # (a comparison with a literal, the name then called: the hint finds nothing, nor does the pattern)
    assert r._COMPARED_HINT.search(line) is None and r._QUOTED_COMPARED.search(line) is None
    short = 'if("' + SECRET + '"===password){a()}'
    assert r._COMPARED_HINT.search(short) and r._QUOTED_COMPARED.search(short)


# ... and a long line's _ENV_ASSIGN only where one of its heads is found (_ENV_FLAG_HINT, _ENV_EXPORT_HINT,
# _ENV_START_HINT).
# (its long lines: LONG_LINES)


def test_env_hints_skip_only_lines_without_a_match():
    from chunkers import secret_tokens as r
    line = FILLER + "a=b-c,d=process.env.NODE_ENV,e=i--,export{t as secret_token};" + FILLER
    hints = (r._ENV_FLAG_HINT, r._ENV_EXPORT_HINT, r._ENV_START_HINT)
    assert not any(h.search(line) for h in hints) and r._ENV_ASSIGN.search(line) is None
    for short in ("docker run -e DB_PASSWORD=" + SECRET, "ENV API_KEY=" + SECRET, "export TOKEN=" + SECRET):
        assert any(h.search(short) for h in hints) and r._ENV_ASSIGN.search(short)
