; The code graph's references in Python (ledger_assets/enrich/graph.py reads the captures).
; Comments and string text hold no identifier nodes, so they never yield a reference (the code
; in an f-string's braces is code, and does).

; A name that may refer to a definition: a type anywhere, a function where called.
(identifier) @name

; Names a call applies: f(...), obj.f(...).
(call function: (identifier) @call)
(call function: (attribute attribute: (identifier) @call))

; import a.b, import a.b as c
(import_statement name: (dotted_name) @import.module)
(import_statement name: (aliased_import name: (dotted_name) @import.module))

; from m import x, y as z: each @import.name belongs to the @import.from before it.
(import_from_statement module_name: (_) @import.from)
(import_from_statement name: (dotted_name) @import.name)
(import_from_statement name: (aliased_import name: (dotted_name) @import.name))
