; The code graph's references in C# (ledger_assets/enrich/graph.py reads the captures).
; Comments and string text hold no identifier nodes, so they never yield a reference (the code
; in an interpolated string's braces is code, and does).

; A name that may refer to a definition: a type anywhere, a method where called.
(identifier) @name

; Names an invocation applies: F(...), F<T>(...), x.F(...), x?.F(...), and new T(...).
(invocation_expression function: (identifier) @call)
(invocation_expression function: (generic_name (identifier) @call))
(invocation_expression function: (member_access_expression name: (identifier) @call))
(invocation_expression function: (member_access_expression name: (generic_name (identifier) @call)))
(invocation_expression function: (conditional_access_expression (member_binding_expression name: (identifier) @call)))
(invocation_expression
  function: (conditional_access_expression (member_binding_expression name: (generic_name (identifier) @call))))
(object_creation_expression type: (identifier) @call arguments: (argument_list))
(object_creation_expression type: (generic_name (identifier) @call) arguments: (argument_list))
(object_creation_expression type: (qualified_name name: (identifier) @call) arguments: (argument_list))
(object_creation_expression type: (qualified_name name: (generic_name (identifier) @call)) arguments: (argument_list))

; using N.M; global using static N.M; using A = N.M; (the namespace or type used, when a dotted name)
(using_directive "=" . [(identifier) (qualified_name)] @using (#match? @using "^[\\w.]+$"))
(using_directive !name . [(identifier) (qualified_name)] @using (#match? @using "^[\\w.]+$"))

; namespace N.M { } and namespace N.M;
(namespace_declaration name: (_) @namespace)
(file_scoped_namespace_declaration name: (_) @namespace)
