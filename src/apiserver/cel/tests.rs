//! Unit tests of the CEL interpreter: precedence, macros, errors and hostile input.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use super::*;

fn decls() -> Declarations {
    Declarations { variables: ["object", "oldObject"].iter().map(|s| s.to_string()).collect(), composited: None }
}

fn run_with(expr: &str, object: serde_json::Value) -> Result<Val, String> {
    let program = compile(expr, &decls())?;
    let mut vars = BTreeMap::new();
    vars.insert("object".to_string(), Val::from_json(&object));
    vars.insert("oldObject".to_string(), Val::Null);
    let act = Activation { vars, variables: None };
    program.eval(&act, PER_CALL_LIMIT).0.map_err(|e| e.message)
}

fn run(expr: &str) -> Result<Val, String> {
    run_with(expr, json!({}))
}

fn is_true(expr: &str) -> bool {
    matches!(run(expr), Ok(Val::Bool(true)))
}

#[test]
fn arithmetic_binds_tighter_than_comparison_and_comparison_tighter_than_logic() {
    assert!(is_true("1 + 2 * 3 == 7"));
    assert!(is_true("(1 + 2) * 3 == 9"));
    assert!(is_true("10 - 4 - 3 == 3"));
    assert!(is_true("7 / 2 == 3 && 7 % 2 == 1"));
    assert!(is_true("true || false && false"));
    assert!(is_true("!false && !(1 > 2)"));
    assert!(is_true("1 < 2 ? 'a' == 'a' : false"));
    assert!(is_true("false ? 1 : true ? 2 == 2 : 3 == 4"));
    assert!(is_true("-5 + 3 == -2"));
    assert!(is_true("2 in [1, 2, 3] && !(4 in [1, 2, 3])"));
    assert!(is_true("'b' in {'a': 1, 'b': 2}"));
}

#[test]
fn numbers_compare_across_types_but_do_not_mix_in_arithmetic() {
    assert!(is_true("1 == 1.0 && 1u == 1 && 2 > 1.5"));
    assert_eq!(run("1 + 1.0").unwrap_err(), "no such overload");
    assert_eq!(run("1 / 0").unwrap_err(), "division by zero");
    assert_eq!(run("1 % 0").unwrap_err(), "modulus by zero");
    assert_eq!(run("9223372036854775807 + 1").unwrap_err(), "integer overflow");
    assert!(is_true("-9223372036854775808 < 0"));
}

#[test]
fn fields_of_the_object_are_read_and_missing_ones_are_errors_unless_tested_with_has() {
    let obj =
        json!({"spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "a", "image": "nginx:1.27"}]}}}});
    assert!(matches!(run_with("object.spec.replicas <= 5", obj.clone()), Ok(Val::Bool(true))));
    assert_eq!(run_with("object.spec.paused", obj.clone()).unwrap_err(), "no such key: paused");
    assert!(matches!(run_with("!has(object.spec.paused)", obj.clone()), Ok(Val::Bool(true))));
    assert!(matches!(run_with("has(object.spec.replicas)", obj.clone()), Ok(Val::Bool(true))));
    assert!(matches!(
        run_with("object.spec.template.spec.containers.all(c, c.image.startsWith('nginx'))", obj.clone()),
        Ok(Val::Bool(true))
    ));
    assert_eq!(run_with("object.spec.template.spec.containers[3]", obj.clone()).unwrap_err(), "index out of bounds: 3");
    assert_eq!(run_with("object.spec['x']", obj).unwrap_err(), "no such key: x");
    assert_eq!(run_with("oldObject.spec", json!({})).unwrap_err(), "no such key: spec");
}

#[test]
fn macros_iterate_lists_and_map_keys() {
    assert!(is_true("[1, 2, 3].all(x, x > 0)"));
    assert!(is_true("[1, 2, 3].exists(x, x == 2)"));
    assert!(is_true("[1, 2, 3].exists_one(x, x > 2)"));
    assert!(is_true("![1, 2, 3].exists_one(x, x > 1)"));
    assert!(is_true("[1, 2, 3].map(x, x * 2) == [2, 4, 6]"));
    assert!(is_true("[1, 2, 3].map(x, x > 1, x * 10) == [20, 30]"));
    assert!(is_true("[1, 2, 3].filter(x, x % 2 == 1) == [1, 3]"));
    assert!(is_true("{'a': 1, 'b': 2}.all(k, k.size() == 1)"));
    assert!(is_true("[[1], [2, 3]].map(l, l.map(x, x + 1)) == [[2], [3, 4]]"));
}

#[test]
fn logic_absorbs_errors_when_the_other_side_decides() {
    assert!(is_true("!(false && 1 / 0 == 1)"));
    assert!(is_true("(1 / 0 == 1) || true"));
    assert_eq!(run("(1 / 0 == 1) && true").unwrap_err(), "division by zero");
    assert!(is_true("[0, 1].exists(x, 1 / x == 1)"));
    assert_eq!(run("[0, 1].all(x, 1 / x == 1)").unwrap_err(), "division by zero");
}

#[test]
fn strings_conversions_and_kubernetes_functions_work() {
    assert!(is_true("'hello'.contains('ell') && 'hello'.endsWith('lo') && 'hello'.matches('^h.*o$')"));
    assert!(is_true("'a,b,c'.split(',') == ['a', 'b', 'c'] && ['a', 'b'].join('-') == 'a-b'"));
    assert!(is_true("'Hello'.lowerAscii() == 'hello' && '  x '.trim() == 'x'"));
    assert!(is_true("int('42') == 42 && string(42) == '42' && string(1.5) == '1.5' && double(2) == 2.0"));
    assert!(is_true("type(1) == int && type('a') == string"));
    assert!(is_true("size('héllo') == 5 && size([1, 2]) == 2 && size({'a': 1}) == 1"));
    assert!(is_true(
        "quantity('500m').isLessThan(quantity('1')) && quantity('1Gi').compareTo(quantity('1024Mi')) == 0"
    ));
    assert!(is_true("[3, 1, 2].sum() == 6 && [3, 1, 2].max() == 3 && [1, 2, 3].isSorted()"));
    assert!(is_true("sets.contains([1, 2, 3], [1, 3])"));
    assert_eq!(run("int('abc')").unwrap_err(), "type conversion error from 'string' to 'int'");
    assert_eq!(run("'abc'.substring(5)").unwrap_err(), "index out of range: 5");
}

#[test]
fn undeclared_references_are_compile_errors_with_a_caret() {
    let err = compile("foo.bar == 1", &decls()).unwrap_err();
    assert_eq!(err, "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo.bar == 1\n | ^");
    let err = compile("object.x.nope()", &decls()).unwrap_err();
    assert!(err.starts_with("ERROR: <input>:1:14: undeclared reference to 'nope' (in container '')"), "{err}");
    let with_vars = Declarations {
        variables: decls().variables,
        composited: Some(["a".to_string()].into_iter().collect::<BTreeSet<_>>()),
    };
    assert!(compile("variables.a == 1", &with_vars).is_ok());
    let err = compile("variables.b == 1", &with_vars).unwrap_err();
    assert!(err.starts_with("ERROR: <input>:1:10: undefined field 'b'"), "{err}");
}

#[test]
fn syntax_errors_are_reported_not_panicked_on() {
    for bad in
        ["", "1 +", "(1", "[1, 2", "{'a' 1}", "a.", "1 2", "'unterminated", "has(a)", "[1].all(1, true)", "\\", "if"]
    {
        assert!(compile(bad, &decls()).is_err(), "{bad:?} should not compile");
    }
    let err = compile("object.spec.replicas >", &decls()).unwrap_err();
    assert!(err.starts_with("ERROR: <input>:1:23: Syntax error: mismatched input '<EOF>' expecting"), "{err}");
    assert!(err.ends_with("\n | object.spec.replicas >\n | ......................^"), "{err}");
}

#[test]
fn hostile_nesting_is_an_error_not_a_stack_overflow() {
    let deep_parens = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(compile(&deep_parens, &decls()).is_err());
    let deep_lists = format!("{}1{}", "[".repeat(5_000), "]".repeat(5_000));
    let err = compile(&deep_lists, &decls()).unwrap_err();
    assert_eq!(err, "ERROR: <input>:-1:0: max recursion depth exceeded");
    let long_sum = vec!["1"; 20_000].join(" + ");
    assert_eq!(
        compile(&long_sum, &decls()).unwrap_err(),
        "ERROR: <input>:-1:0: expression recursion limit exceeded: 250"
    );
    let nested_macros = format!("{}true{}", "[1].all(x, ".repeat(MAX_NESTING - 2), ")".repeat(MAX_NESTING - 2));
    assert!(is_true(&nested_macros), "nesting just under the limit still evaluates");
    let long_and = vec!["true"; 10_000].join(" && ");
    assert!(is_true(&long_and), "logical chains are balanced, so they stay shallow");
    let not_chain = format!("{}true", "!".repeat(50_001));
    assert!(matches!(run(&not_chain), Ok(Val::Bool(false))), "{:?}", run(&not_chain));
    let too_long = "1".repeat(MAX_CODE_POINTS + 1);
    assert!(compile(&too_long, &decls()).unwrap_err().contains("expression code point size exceeds limit"));
}

#[test]
fn runaway_evaluation_stops_at_the_cost_limit() {
    let blowup = "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10].map(f, a + b))))))";
    assert_eq!(run(blowup).unwrap_err(), "operation cancelled: actual cost limit exceeded");
    assert!(run("'(a+)+$'.matches('(((a+)+)+)+$')").is_ok());
    let wide = format!("'{}'.replace('', '{}')", "x".repeat(2_000), "y".repeat(1_000));
    assert_eq!(run(&wide).unwrap_err(), "operation cancelled: actual cost limit exceeded");
}

#[test]
fn doubles_print_like_go_percent_g() {
    use super::value::format_double;
    assert_eq!(format_double(1.5), "1.5");
    assert_eq!(format_double(100000.0), "100000");
    assert_eq!(format_double(1e6), "1e+06");
    assert_eq!(format_double(0.0001), "0.0001");
    assert_eq!(format_double(0.00001), "1e-05");
    assert_eq!(format_double(-2.25), "-2.25");
}
