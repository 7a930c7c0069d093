; The code graph's references in JavaScript and JSX (ledger_assets/enrich/graph.py reads the captures).
; Comments, string text and JSX text hold no identifier nodes, so they never yield a reference
; (the code in a template string's ${...} is code, and does).

; A name that may refer to a definition: a type anywhere, a function or method where called.
[(identifier) (property_identifier) (shorthand_property_identifier)
 (shorthand_property_identifier_pattern) (statement_identifier)] @name

; Names a call applies: f(...), x.f(...), and new C(...).
(call_expression function: (identifier) @call arguments: (arguments))
(call_expression function: (member_expression property: (property_identifier) @call) arguments: (arguments))
(new_expression constructor: (identifier) @call arguments: (arguments))
(new_expression constructor: (member_expression property: (property_identifier) @call) arguments: (arguments))

; Module specifiers: import/export ... from "m", import "m", import("m"), require("m").
(import_statement source: (string (string_fragment) @import.source))
(export_statement source: (string (string_fragment) @import.source))
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.source)))
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string (string_fragment) @import.source))
  (#eq? @_require "require"))
