"""Hostile lines for the secrets redactor: CPU seconds of `redact_text` per input, one process per input and tree.

    PYTHONPATH=. python benchmarks/redact_worst_case.py [--cap 10] [--size 60000] [--only NAME,...] TREE [TREE ...]

Each TREE is a checkout holding chunkers/ (this one, `.`, and main's exported to /tmp, say): its redactor is imported
in a child process per input, and an input that runs past --cap seconds is killed and shown as `>CAP`. The inputs are
lines built against the patterns of chunkers/redact.py and chunkers/secret_rules.py: long runs of a pattern's repeated
character classes, many repeats of its keywords, long blank runs, quotes left open, many `=` and `:`. Each is about
--size characters (the repeat counts scale with it). See benchmarks/secrets_recall.md, "Worst cases (2026-12-04)".
"""
import argparse
import subprocess
import sys


def inputs(size: int) -> dict[str, str]:
    def rep(unit: str, tail: str = "", head: str = "") -> str:
        return head + unit * max(1, (size - len(head) - len(tail)) // len(unit)) + tail

    return {
        # a run of name characters holding many secret words (the thirtieth round's find)
        "name_run_assign": rep("apassword", ' = "xyzzy plain words"', "a"),
        "name_run_digit": rep("apassword", ' = "xyzzy plain words"', "1"),
        "name_run_ternary": rep("apassword", ' = x ? "a" : "b"', "a"),
        "name_run_config": rep("apassword", ": [x", "a"),
        "name_run_quoted_env": rep("apassword", '=$x"', '"a'),
        "name_run_call_pair": rep("apassword", '", x)', '("a'),
        "name_run_equals": rep("apassword", ".equals(x)", "a"),
        "name_run_compared": rep("apassword", ".x", '"v" == a'),
        "name_run_arrow": rep("apassword", ": () => x", "a"),
        "name_run_dotted": rep("a.password", ";"),
        "name_run_dashed": rep("a-token-", " = x("),
        "name_run_dollar": rep("$apikey", " = f(x)"),
        "name_run_core_at_end": rep("a", 'password = "x" + y', "b"),
        "dotted_then_core": rep("a.", 'password = "x" + y'),
        # keywords repeated
        "password_eq_many": rep("password=", ""),
        "password_spaced_many": rep("password = ", ""),
        "token_colon_many": rep("token: ", ""),
        "secret_words": rep(" secret", ""),
        "password_quoted_many": rep('password = "x" ', ""),
        "define_many": rep("define('DB_PASSWORD', ", ""),
        "call_pair_many": rep('("password", ', ""),
        "equals_literal_many": rep('"a".equals(', ""),
        "strcmp_many": rep("strcmp(password, ", ""),
        "getenv_many": rep('api_key = os.environ.get("X", ', ""),
        "list_pair_many": rep('["password", ', ""),
        "xml_key_many": rep("<key>Password</key>", ""),
        "xml_password_many": rep("<password>", ""),
        "cli_flag_many": rep("--password ", ""),
        "kind_secret_many": rep("kind: Secret ", ""),
        "conn_parts": rep("Server=x;", "Password=y"),
        "conn_semicolons": rep("Password=a;", ""),
        "url_creds": rep("a", "@host", "https://user:"),
        "url_at_run": rep("@", "", "https://user:"),  # the thirty-first round's find: quadratic on main too
        "url_user_at_run": rep("@x", "", "https://u@e.com:x"),
        "url_many": rep("://", ""),
        "begin_key_many": rep("-----BEGIN ", ""),
        "aws_many": rep("AKIA", ""),
        "ghp_many": rep("ghp_", ""),
        "jwt_like": rep("eyJ", ""),
        "char_array": rep("'a', ", "", "char[] password = { "),
        "alt_assign_calls": rep("f(", ' || "x"', "token = "),
        "alt_assign_dots": rep("a.", ' || "x"', "token = "),
        "ternary_chain": rep('x ? "a" : ', '"b"', "token = "),
        "py_if_else": rep("x if y ", ' else "z"', "token = "),
        "weak_name_after_dotted": rep("a.", ' || "x"; x_key = "hello world again"', "token = "),
        # a dotted run of word starts before a name with no secret word, or before a quote left open (left, see the md)
        "dotted_no_core": rep("a.", 'xkey = "hello world again"'),
        "dotted_unclosed": rep("a.", 'password = "unclosed'),
        "run_before_wrapped": rep("a", 'xkey = base64.b64decode("abcdefghijklmnop")'),
        "run_before_char_array": rep("a", "xkey = { 'a', 'b' }"),
        "dotted_before_equals": rep("a.", 'xkey.equals("abc")'),
        "dotted_in_strcmp": rep("a.", 'xkey, "abc")', "strcmp("),
        "dotted_before_define": rep("a.", ' "abc"', "#define "),
        "dotted_before_ctor": rep("a.", '("abc")', "std::string "),
        "dotted_before_arrow": rep("a.", 'xkey: () => "abc"'),
        "dotted_before_ternary": rep("a.", 'xkey = x ? "a" : "b"'),
        "dotted_quoted_env": rep("a.", 'xkey=abc"', '"'),
        # separators and blanks
        "many_equals": rep("=", "", "password"),
        "many_colons": rep(":", "", "password"),
        "blank_run_value": rep(" ", "x", 'password = "'),
        "blank_run_ini": rep(" ", "x;", "password ="),
        "blank_run_config": rep(" ", "x(", "password: "),
        "tab_run": rep("\t", "x(", "password\t="),
        "ini_words": rep("a ", "(", "password = "),
        "unclosed_double": rep("a", "", 'password = "'),
        "unclosed_escapes": rep("\\a", "", "'token': '"),
        "backslashes": rep("\\", '"', '"password": "'),
        "quotes_only": rep('"', ""),
        "quote_pairs": rep("'a',", ""),
        "base64_run": rep("A", ""),
        "hex_run": rep("0", ""),
        "json_open_many": rep('{"password": ', ""),
        "npmrc_many": rep("_auth", "", ""),
        "glued_pairs": rep("a=1password=", '"', '"'),
        "spaced_pairs": rep('password = "a" ', "", ""),
        "statements": rep("password=a; ", ""),
        # the thirty-second round's forms: a blank run inside a config line's value (its find: quadratic on main),
        # a YAML block scalar's run of lines, a properties password, a URL query's passwords, SSWS and Bearer runs
        "config_blank_run": rep(" ", "b", "password=a"),
        "yaml_block_lines": rep("\n  x", "", "password: |"),
        "yaml_block_keys": rep("password: |\n", ""),
        "props_blank_run": rep(" ", "b'", "spring.datasource.password='a"),
        "props_dotted_run": rep("a.", "password=x", "spring."),
        "query_password_run": rep("&password=ab", "", "https://h/?"),
        "ssws_run": rep("SSWS ", "00"),
        "bearer_run": rep("Bearer ", "0"),
        # the thirty-third round's: a blank run after a spaced ini line's value, before a `#` (quadratic on main)
        "ini_blank_run": rep(" ", "# c", "db_password = x"),
        # the thirty-fourth round's setter named for a secret: a name run of secret words, many setters, a blank run
        "setter_name_run": rep("apassword", '("x")', "x.setA"),
        "setter_many": rep("a.setPassword(b) ", '("x"'),
        "setter_blank_run": rep(" ", '("y")', "x.setPassword"),
        # the thirty-fifth round's builder method, setter in another language, JSch's addIdentity, key from bytes
        "method_name_run": rep("apassword", '("x")', "x."),
        "method_many": rep("a.password(b) ", '("x"'),
        "method_open_literals": rep('.password("a', ""),
        "setter_foreign_run": rep("asenha", '("x")', "x.setA"),
        "setter_foreign_set_run": rep("set", 'senha("x")', "a."),
        "identity_args": rep(',"a"', " x)", "j.addIdentity(k"),
        "identity_many": rep("addIdentity(k,", '"x")'),
        "identity_open": rep(",a", "", 'j.addIdentity(k,"'),
        "key_bytes_many": rep("new HMACSHA256(Encoding.UTF8.GetBytes(", '"x"))'),
        # the thirty-sixth round's typed declarations (VB's `As Type`, Go's `string`, Rust's `&str`, C's `[]`) and a
        # credential constructor's first argument as a call
        "typed_as_blanks": rep(" ", 'As String = "x"', "password"),
        "typed_as_many": rep('password As String = x ', '"x"'),
        "typed_as_type_run": rep("a.", ' = "x"', "password As "),
        "typed_go_many": rep("password string ", '= "x"'),
        "typed_rust_many": rep("password: &'a str ", '= "x"'),
        "typed_array_digits": rep("1", '] = "x"', "password["),
        "cred_ctor_calls": rep("a()", '"x")', "new NetworkCredential("),
        "cred_ctor_many": rep("New NetworkCredential(a() ", '"x")'),
        # the fifty-fifth round's decoded literal (a call found, then a name looked for before it) and `db_pass`
        "decode_calls_many": rep('password = atob("QUJDREVGR0g=") '),
        "decode_after_name_run": rep("apassword.", 'atob("QUJDREVGR0g=")', "x = "),
        "decode_wrapped_many": rep("f(", 'b64decode("QUJDREVGR0g=")', "password = "),
        "holder_pass_many": rep('db_pass = "abcdefgh" '),
        # a long unquoted value of letters and digits under a name holding "token" (round 65: 30 s at 60,000)
        "weak_unquoted_run": rep("1h", "", "token_ttl: "),
        # a long run of a URL scheme's characters before `://` (round 65: 1.3 s at 60,000)
        "scheme_run": rep("a.", '"', 'connection_string = "redis://'),
        "scheme_run_userinfo": rep("a.", ':pass@"', 'x = "redis://'),
        # a call's string of many secret words and no closing quote (round 65: 1.4 s at 60,000)
        "call_pair_words": rep("key", "", 'setPassword("'),
        # a phrase's word of another language's letters, long, before a `/` (round 84: 14 s at 60,000)
        "foreign_word_slash": rep("ä", '/ä1."', '"password": "ab '),
        # a run of `value="x"` after a secret's label: each read lazily to the line's end for a `name=` (round 89)
        "xml_value_run": rep(' value="x"', " />", '<a for="password"'),
        # a name of many words before a secret's and a lower-case value: round 88's kind's name joined each head afresh
        "kind_name_words": rep("Ab", 'Secret = "sealedxyzq"', "Sealed"),
        # a list of many generated items under a password's name, each read and redacted (round 90)
        "list_items": rep("'Zq8vN3xL0pR7tY2wK5mB4cD', ", "]", "pwd = ["),
        # `$` makes each `a` a name's start, and a name ending in `pw` is read up to 100 characters back (round 91)
        "pw_dollar_run": rep("a$pw", ' = "hunter2x"'),
        # many list openers before a secret's list, or under names that are no secret's (each opener's name is read in
        # its own window of 80 characters: round 94)
        "list_openers": rep("x=[1]; ", 'passwords = ["Zq8vN3xL0pR7tY2wK5mB4cD"]', "secret "),
        "list_openers_names": rep("ab_user_name=[", '"Zq8vN3xL0pR7tY2wK5mB4cD"]', "secret "),
        # a store's path after a secret's flag, a database's file, a name's last word, a template after words, a run of
        # one sign, a conditional's branches (round 95)
        "store_path_run": rep("a/", '"', 'x -secret="'),
        "db_file_run": rep("a/", 'x.db"', 'DefaultConnection = "Data Source='),
        "last_word_run": rep("aAddr", ' = "Zq8vN3xL0pR7tY2wK5mB4cD"', "token"),
        "template_run": rep("a-{{", "", "key: "),
        "sign_run": rep("%", "x", "AWS_SECRET_ACCESS_KEY="),
        "ternary_run": rep("a.", " ? 0 : 60", "max_password_age = var."),
        # a summon path of variables, a help's words after a password's flag, a concatenation before an argument, a
        # template cut by its quotes, a product's name run (round 96)
        "summon_var_run": rep("$a/", "", "API_KEY: !var "),
        "flag_help_words": rep("word ", "", "  -P,--password \t\t"),
        "concat_args": rep("+ a, ", '"', 'x("password=" '),
        "template_cut_run": rep("{{ a", '"', 'password = "'),
        "secretless_run": rep("secretless", ": x"),
        # a regex's classes, a scope's dotted parts, a Jinja concatenation, escaped letters of another script (round 97)
        "regex_classes": rep("[a-z]", "", "token = ':"),
        "scope_parts": rep("ab.", 'x"', 'token: "'),
        "jinja_concat": rep(" ~ a", " ~ '", "x = 'secret='"),
        "escaped_script": rep("\\u3053", "", "password="),
        # a Google Cloud resource's name of many parts, a cache key of many expressions and words (round 92)
        "gcp_name_parts": rep("a/", "x", "GOOGLE_CLOUD_KMS_KEY=projects/"),
        "cache_key_exprs": rep("-a1", "-A", "key: ${{ x }}"),
        # many secret-named lists on one line, each read to the next opener; items between many openers (round 98)
        "secret_lists_many": rep('p={passwords:["Zq8vN3xL0pR7tY2wK5mB4cD"]};'),
        "items_between_openers": rep('"Zq8vN3xL0pR7tY2wK5mB4cD", a=[', "]", "passwords = ["),
        # a store's reference of words, a path of hidden folders, code after a string's end, a constant's words, a
        # paginator's field, a signing scheme's parts (round 99)
        "store_words_run": rep("ab ", '/x"', 'password: "bw://'),
        "hidden_dirs_run": rep(".a/", "id_rsa", "ssh_key: ~/"),
        "concat_static_run": rep("a::", '"', 'password="+ '),
        "one_case_words_run": rep("_ab", '"', 'serviceAccountKey = "ab'),
        "page_field_run": rep("Ab", "x'", "'input_token' => '"),
        "signing_scheme_run": rep("-A1", '"', 'Authorization: "AWS4-HMAC'),
        # a deployment template's expression, a public key's short name, a test's value named for its key (round 100)
        "arm_expression_run": rep("[a(", '"', '"adminPassword": "'),
        "pub_key_run": rep("apub_key", "=Zq8vN3xL0pR7tY2wK5mB4cD"),
        "named_val_run": rep("-val", '"', 'APP_KEY: "app'),
        # a Terraform check's resource address and attribute path, a token's period (round 101)
        "tf_address_run": rep("a_b.", '", "type")', 'check("vault_secret'),
        "tf_attribute_run": rep("a.#.", '")', 'check("vault_secret.x", "'),
        "period_run": rep("aPeriod", ' = "Zq8vN3xL0pR7tY2wK5mB4cD"', "token"),
        # a call's last two arguments after one other, a state's path through an index, a key's size (round 103)
        "later_pair_many": rep('w(a,"token","'),
        "later_pair_open": rep('w(a, "password", `', "x`)"),
        "state_path_run": rep("a.0.", '", "Zq8vN3xL0pR7")', 'check(n, "'),
        "state_index_run": rep(".0", '", "Zq8vN3xL0pR7")', 'check(n, "secret'),
        "key_bits_run": rep("a_key", '_bits = "2048"', "x"),
        # a key's spec, dotenvx's ciphertext, an AWS model's shape (rounds 104, 105)
        "spec_run": rep("aSpec", ' = "Zq8vN3xL0pR7tY2wK5mB4cD"', "token"),
        "encrypted_run": rep("A/+1", '"', 'DB_PASSWORD="encrypted:B'),
        "shape_run": rep("Ab1_", '"}', '{"apiKey": {"shape": "'),
        # an existing Secret's key's name, a Secret named for its certificate, a Secret's descriptors (round 107)
        "existing_key_run": rep("existing_a", 'Key: "Zq8vN3xL0pR7tY2wK5mB4cD"'),
        "ca_secret_run": rep("aCA", 'Secret: "Zq8vN3xL0pR7tY2wK5mB4cD"'),
        "k8s_descriptor_run": rep("\n  type: a-b-c", "\n", "kind: Secret\nstringData:"),
        # a path under a file's name, a chart's password key (round 108)
        "hole_path_run": rep("/a.b", '"', 'GPG_PASSPHRASE_FILE: "${{ runner.temp }}'),
        "password_key_run": rep("a-b-", 'password"', 'passwordKey: "'),
        # external-secrets' data item as text, an environment tag (round 109)
        "es_item_run": rep("secretKey:", " x", "  - secretKey: "),
        "env_tag_run": rep("A_", "!", "api_key: !env_var "),
        # an entry point's module of many words, a connection string's template of many words, a member's own name
        # of many words (round 110)
        "entry_point_run": rep("a_", 'b.c:PASSWORD"', 'password = "'),
        "my_part_run": rep("Ab", '"', 'x = "AccountName=a;AccountKey=my'),
        "member_name_run": rep("_A", '"', 'assert x.a_b == "A'),
        # a credential's member of many words, a database's URL of many query parts or path parts (round 110)
        "cred_member_run": rep("a_", 'host = "Zq8vN3xL0pR7tY2wK5mB4cD"', "creds."),
        "url_query_run": rep("&a=b", '"', 'credentials = "postgres://u@h/d?x=y'),
        "url_path_run": rep("/a:", '"', 'credentials = "sqlite://'),
        # a URL of many holes, a connection string of many holes, a reference's many blanks (round 111)
        "url_hole_run": rep("<a>", '"', 'credentials = "postgres://u:<p>@'),
        "conn_hole_run": rep("A=<x>;", 'Password=Zq8vN3xL0pR7tY2wK5mB4cD"', 'conn = "'),
        "secret_ref_run": rep(" ", '"x", version=1', 'secret="'),
        # a store's entry of many words, a prompt's quote before many blanks, a value's blanks before a line's
        # continuation, a name of many words run together (round 112)
        "entry_name_run": rep("a_", "b1", "credentials: "),
        "next_argument_run": rep(" ", 'x"', 'secret: ", a'),
        "continuation_run": rep(" \t", "a \\", "PASSWORD=a"),
        "own_tail_run": rep("Ab", ' = "ababababab"', "Secret"),
        # a token's YAML block scalar of many one-word lines, a block's name of many name characters (round 113)
        "block_lines_run": rep("\n    Zq8v", "\n", "  api_key: |"),
        "block_name_run": rep("a-", "token: |\n    x", "  "),
    }


def child(root: str, name: str, size: int) -> None:
    import time

    sys.path.insert(0, root)
    from chunkers.redact import redact_text

    text = inputs(size)[name] + "\n"
    start = time.process_time()
    redact_text(text)
    print(f"{time.process_time() - start:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--cap", type=float, default=10.0)
    parser.add_argument("--size", type=int, default=60000)
    parser.add_argument("--only", default="")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.size)
        return
    names = [n for n in inputs(args.size) if not args.only or n in args.only.split(",")]
    print("input\tchars\t" + "\t".join(args.trees))
    for name in names:
        cells = []
        for tree in args.trees:
            try:
                done = subprocess.run([sys.executable, __file__, "--size", str(args.size), "--child", tree, name, tree],
                                      capture_output=True, text=True, timeout=args.cap + 5)
                cells.append(done.stdout.strip() or "error: " + done.stderr.strip().splitlines()[-1])
            except subprocess.TimeoutExpired:
                cells.append(f">{args.cap:g}")
        print(f"{name}\t{len(inputs(args.size)[name])}\t" + "\t".join(cells), flush=True)


if __name__ == "__main__":
    main()
