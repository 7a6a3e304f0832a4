//! ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1): policies whose CEL `validations` run on
//! every request their `matchConstraints` select (resource rules with operations, groups, versions,
//! resources and scope, `excludeResourceRules`, `namespaceSelector`, `objectSelector`), through the
//! ValidatingAdmissionPolicyBindings that name them (`policyName`, optional `matchResources`,
//! `validationActions`: `Deny`, `Warn`, `Audit`).
//!
//! A failed validation with `Deny` refuses the request with the validation's `reason` (default `Invalid`,
//! 422): `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: <message>`,
//! one cause holding the part after `is forbidden: `, so kubectl prints `The pods "x" is invalid: :
//! ValidatingAdmissionPolicy …`. The message is `messageExpression`'s (a one-line string), else `message`,
//! else `failed expression: <expression>`. `Warn` adds the warning `Validation failed for
//! ValidatingAdmissionPolicy 'p' with binding 'b': <message>`; `Audit` has no visible effect (no audit log).
//! An expression that fails to evaluate (`expression '<e>' resulted in error: no such key: x`) refuses the
//! request under `failurePolicy: Fail` and is ignored under `Ignore`; so is a policy whose `paramKind` names
//! an unknown kind (`failed to configure policy: …`) or a binding whose parameters cannot be found.
//!
//! Expressions see `object`, `oldObject`, `request`, `namespaceObject`, `params` (when the policy has a
//! `paramKind`) and `variables.<name>` (evaluated lazily, once per binding and parameter). `matchConditions`
//! are honoured. Parameters: `paramRef` may be left out (then `params` is null), or name an object of a
//! kind kubeglass knows by `name` or `selector`, in `paramRef.namespace` or the request's namespace, with
//! `parameterNotFoundAction`. Not supported: the `authorizer` variable, audit annotations, `matchPolicy:
//! Equivalent` across API versions (kubeglass serves one version per resource), and type checking against
//! schemas (`status.typeChecking` stays empty). Policies apply in name order, bindings in name order; the
//! first denial is reported. Requests on policies and bindings themselves are exempt, as in Kubernetes.
//! Counterpart: `staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating`.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::admissionregistration::v1::{
    MatchResources, NamedRuleWithOperations, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding,
};
use serde_json::{json, Map, Value};

use crate::api::{lookup_kind, Cause, Kind, Object, Reason, Status, Verb};
use crate::apiserver::cache::WatchCache;
use crate::apiserver::cel::{self, Activation, Declarations, EvalError, Val};
use crate::apiserver::validation::names::Selector;

use super::limit_ranger::aggregate;
use super::AdmissionRequest;

/// Kubernetes' whole-request CEL budget (`RuntimeCELCostBudget`).
const RUNTIME_BUDGET: u64 = 10_000_000;
/// The longest message a `messageExpression` may produce (`MaxEvaluatedMessageExpressionSizeBytes`).
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// One outcome of a validation.
struct Decision {
    deny: bool,
    message: String,
    reason: Option<String>,
}

/// A denial, kept with the policy and binding it came from.
struct Denial {
    policy: String,
    binding: Option<String>,
    message: String,
    reason: Option<String>,
}

/// The names of the variables an expression of a policy can use: `variables[..upto]`.
fn declarations(policy: &ValidatingAdmissionPolicy, upto: Option<usize>) -> Declarations {
    let spec = policy.spec.as_ref();
    let mut variables: BTreeSet<String> =
        ["object", "oldObject", "request", "namespaceObject"].iter().map(|s| s.to_string()).collect();
    if spec.and_then(|s| s.param_kind.as_ref()).is_some() {
        variables.insert("params".to_string());
    }
    let vars = spec.and_then(|s| s.variables.as_ref());
    let composited = vars.filter(|v| !v.is_empty()).map(|vs| {
        let n = upto.unwrap_or(vs.len()).min(vs.len());
        vs[..n].iter().map(|v| v.name.clone()).collect()
    });
    Declarations { variables, composited }
}

/// Compiles every expression of a policy: the causes a create or update of it is refused with.
pub fn compile_errors(policy: &ValidatingAdmissionPolicy) -> Vec<Cause> {
    use crate::apiserver::validation::field::{self, Path};
    let mut errs = Vec::new();
    let Some(spec) = policy.spec.as_ref() else {
        return errs;
    };
    let path = Path::new("spec");
    let mut compile = |expr: &str, decls: &Declarations, p: Path| {
        if let Err(e) = cel::compile(expr, decls) {
            errs.push(field::invalid_str(&p, expr, &format!("compilation failed: {e}")));
        }
    };
    for (i, c) in spec.match_conditions.iter().flatten().enumerate() {
        if !c.expression.trim().is_empty() {
            let decls = Declarations { composited: None, ..declarations(policy, Some(0)) };
            compile(&c.expression, &decls, path.child("matchConditions").index(i).child("expression"));
        }
    }
    for (i, v) in spec.variables.iter().flatten().enumerate() {
        if !v.expression.trim().is_empty() {
            compile(
                &v.expression,
                &declarations(policy, Some(i)),
                path.child("variables").index(i).child("expression"),
            );
        }
    }
    for (i, v) in spec.validations.iter().flatten().enumerate() {
        let p = path.child("validations").index(i);
        if !v.expression.trim().is_empty() {
            compile(&v.expression, &declarations(policy, None), p.child("expression"));
        }
        if let Some(m) = v.message_expression.as_deref().filter(|m| !m.trim().is_empty()) {
            compile(m, &declarations(policy, None), p.child("messageExpression"));
        }
    }
    errs
}

fn operation(verb: Verb) -> &'static str {
    match verb {
        Verb::Create => "CREATE",
        Verb::Delete | Verb::DeleteCollection => "DELETE",
        _ => "UPDATE",
    }
}

fn exact_or_wildcard(items: Option<&Vec<String>>, wanted: &str) -> bool {
    items.into_iter().flatten().any(|i| i == "*" || i == wanted)
}

fn rule_matches(rule: &NamedRuleWithOperations, req: &AdmissionRequest) -> bool {
    let info = req.kind.info();
    let scope_ok = match rule.scope.as_deref() {
        None | Some("*") => true,
        Some("Namespaced") => req.kind != Kind::Namespace && req.namespace.is_some_and(|n| !n.is_empty()),
        Some("Cluster") => req.kind == Kind::Namespace || req.namespace.is_none_or(str::is_empty),
        Some(_) => false,
    };
    let op = operation(req.verb);
    let op_ok = rule.operations.iter().flatten().any(|o| o == "*" || o == op);
    let sub = req.subresource.unwrap_or("");
    let resource_ok = rule.resources.iter().flatten().any(|r| {
        let (res, rsub) = r.split_once('/').unwrap_or((r.as_str(), ""));
        (res == "*" || res == info.resource) && (rsub == "*" || rsub == sub)
    });
    let name_ok =
        rule.resource_names.as_ref().is_none_or(|names| names.is_empty() || names.iter().any(|n| n == req.name));
    scope_ok
        && op_ok
        && exact_or_wildcard(rule.api_groups.as_ref(), info.group)
        && exact_or_wildcard(rule.api_versions.as_ref(), info.version)
        && resource_ok
        && name_ok
}

fn selector_matches(
    sel: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    labels: Option<&BTreeMap<String, String>>,
) -> bool {
    match sel {
        None => true,
        Some(s) => Selector::from_label_selector(Some(s)).is_some_and(|s| s.is_empty() || s.matches(labels)),
    }
}

/// `matching.Matcher.Matches`: namespace selector, object selector, exclusions, then rules (`require_rules`:
/// a policy's constraints need a matching rule; a binding without rules matches every resource).
fn criteria_match(
    mr: &MatchResources,
    req: &AdmissionRequest,
    obj: Option<&Object>,
    old: Option<&Object>,
    namespace: Option<&Object>,
) -> bool {
    let cluster_scoped = req.namespace.is_none_or(str::is_empty) && req.kind != Kind::Namespace;
    if !cluster_scoped {
        let labels = match (req.kind, obj) {
            (Kind::Namespace, Some(o)) if matches!(req.verb, Verb::Create | Verb::Update | Verb::Patch) => {
                o.meta().labels.clone()
            }
            _ => namespace.and_then(|n| n.meta().labels.clone()),
        };
        if !selector_matches(mr.namespace_selector.as_ref(), labels.as_ref()) {
            return false;
        }
    }
    if let Some(sel) = mr.object_selector.as_ref() {
        let parsed = Selector::from_label_selector(Some(sel));
        let ok = match parsed {
            Some(s) if s.is_empty() => true,
            Some(s) => [obj, old].iter().flatten().any(|o| s.matches(o.meta().labels.as_ref())),
            None => false,
        };
        if !ok {
            return false;
        }
    }
    if mr.exclude_resource_rules.iter().flatten().any(|r| rule_matches(r, req)) {
        return false;
    }
    match mr.resource_rules.as_ref() {
        Some(rules) if !rules.is_empty() => rules.iter().any(|r| rule_matches(r, req)),
        _ => true,
    }
}

/// The `request` variable: admission/v1 AdmissionRequest as JSON (empty fields left out, as `omitempty` does).
fn request_value(req: &AdmissionRequest) -> Value {
    let info = req.kind.info();
    let kind = json!({"group": info.group, "version": info.version, "kind": info.kind.name()});
    let resource = json!({"group": info.group, "version": info.version, "resource": info.resource});
    let mut m = Map::new();
    m.insert("kind".into(), kind.clone());
    m.insert("resource".into(), resource.clone());
    m.insert("requestKind".into(), kind);
    m.insert("requestResource".into(), resource);
    if let Some(sub) = req.subresource.filter(|s| !s.is_empty()) {
        m.insert("subResource".into(), json!(sub));
        m.insert("requestSubResource".into(), json!(sub));
    }
    if !req.name.is_empty() {
        m.insert("name".into(), json!(req.name));
    }
    if let Some(ns) = req.namespace.filter(|n| !n.is_empty()) {
        m.insert("namespace".into(), json!(ns));
    }
    m.insert("operation".into(), json!(operation(req.verb)));
    let mut user = Map::new();
    if !req.user.name.is_empty() {
        user.insert("username".into(), json!(req.user.name));
    }
    if !req.user.groups.is_empty() {
        user.insert("groups".into(), json!(req.user.groups));
    }
    m.insert("userInfo".into(), Value::Object(user));
    m.insert("dryRun".into(), json!(req.dry_run));
    let options = match req.verb {
        Verb::Create => "CreateOptions",
        Verb::Delete | Verb::DeleteCollection => "DeleteOptions",
        _ => "UpdateOptions",
    };
    m.insert("options".into(), json!({"kind": options, "apiVersion": "meta.k8s.io/v1"}));
    Value::Object(m)
}

/// `CollectParams`: the parameter objects of a binding (`[None]` when the policy takes none or the binding
/// names none), or the configuration error.
fn collect_params(
    policy: &ValidatingAdmissionPolicy,
    binding: &ValidatingAdmissionPolicyBinding,
    req: &AdmissionRequest,
    cache: &WatchCache,
) -> Result<Vec<Option<Object>>, String> {
    let param_kind = policy.spec.as_ref().and_then(|s| s.param_kind.as_ref());
    let param_ref = binding.spec.as_ref().and_then(|s| s.param_ref.as_ref());
    let (Some(kind), Some(pref)) = (param_kind, param_ref) else {
        return Ok(vec![None]);
    };
    let info = lookup_kind(kind.api_version.as_deref().unwrap_or(""), kind.kind.as_deref().unwrap_or(""))
        .ok_or_else(|| "paramKind not known".to_string())?;
    let namespace = if info.namespaced {
        match (pref.namespace.as_deref().filter(|n| !n.is_empty()), req.namespace.filter(|n| !n.is_empty())) {
            (Some(n), _) | (None, Some(n)) => Some(n.to_string()),
            (None, None) => {
                return Err(
                    "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources".into()
                )
            }
        }
    } else {
        if pref.namespace.as_deref().is_some_and(|n| !n.is_empty()) {
            return Err("paramRef.namespace must not be provided for a cluster-scoped `paramKind`".into());
        }
        None
    };
    let params: Vec<Option<Object>> = match (pref.name.as_deref().filter(|n| !n.is_empty()), pref.selector.as_ref()) {
        (Some(_), Some(_)) => return Err("paramRef.name and paramRef.selector are mutually exclusive".into()),
        (Some(name), None) => {
            cache.get(info.kind, namespace.as_deref(), name).map(|o| Some(o.as_ref().clone())).into_iter().collect()
        }
        (None, Some(sel)) => {
            let selector =
                Selector::from_label_selector(Some(sel)).ok_or_else(|| "invalid paramRef.selector".to_string())?;
            cache
                .list(info.kind, namespace.as_deref())
                .into_iter()
                .filter(|o| selector.matches(o.meta().labels.as_ref()))
                .map(|o| Some(o.as_ref().clone()))
                .collect()
        }
        (None, None) => return Err("one of name or selector must be provided".into()),
    };
    if params.is_empty() && pref.parameter_not_found_action.as_deref() == Some("Deny") {
        return Err("no params found for policy binding with `Deny` parameterNotFoundAction".into());
    }
    Ok(params)
}

fn fail_action(policy: &ValidatingAdmissionPolicy) -> Result<bool, String> {
    match policy.spec.as_ref().and_then(|s| s.failure_policy.as_deref()).unwrap_or("Fail") {
        "Fail" => Ok(true),
        "Ignore" => Ok(false),
        other => Err(format!("unrecognized failure policy: '{other}'")),
    }
}

/// Evaluates one expression; errors come back in the apiserver's words.
fn run(expr: &str, decls: &Declarations, act: &Activation, budget: &mut u64) -> Result<Val, String> {
    let program = cel::compile(expr, decls).map_err(|e| format!("compilation error: compilation failed: {e}"))?;
    let limit = cel::PER_CALL_LIMIT.min(*budget);
    let (result, cost) = program.eval(act, limit);
    *budget = budget.saturating_sub(cost);
    result.map_err(|e: EvalError| format!("expression '{expr}' resulted in error: {}", e.message))
}

struct Evaluation<'a> {
    policy: &'a ValidatingAdmissionPolicy,
    vars: BTreeMap<String, Val>,
}

impl Evaluation<'_> {
    /// Runs the match conditions and validations for one parameter; returns the decisions.
    fn decisions(&self, fail: bool) -> Vec<Decision> {
        let spec = match self.policy.spec.as_ref() {
            Some(s) => s,
            None => return Vec::new(),
        };
        let budget = RefCell::new(RUNTIME_BUDGET);
        let cache: RefCell<BTreeMap<String, Result<Val, EvalError>>> = RefCell::new(BTreeMap::new());
        let variables = spec.variables.clone().unwrap_or_default();
        let policy = self.policy;
        let vars = &self.vars;
        // Composited variables, evaluated on first use.
        fn resolve_var(
            name: &str,
            variables: &[k8s_openapi::api::admissionregistration::v1::Variable],
            policy: &ValidatingAdmissionPolicy,
            vars: &BTreeMap<String, Val>,
            cache: &RefCell<BTreeMap<String, Result<Val, EvalError>>>,
            budget: &RefCell<u64>,
            depth: usize,
        ) -> Result<Val, EvalError> {
            if let Some(r) = cache.borrow().get(name) {
                return r.clone();
            }
            let Some(i) = variables.iter().position(|v| v.name == name) else {
                return Err(EvalError::new(format!("no such key: {name}")));
            };
            if depth > variables.len() {
                return Err(EvalError::new(format!("composited variable {:?} fails to evaluate: cycle", name)));
            }
            let decls = declarations(policy, Some(i));
            let result = match cel::compile(&variables[i].expression, &decls) {
                Err(e) => Err(EvalError::new(format!(
                    "composited variable {name:?} fails to compile: compilation failed: {e}"
                ))),
                Ok(program) => {
                    let inner = |n: &str| resolve_var(n, variables, policy, vars, cache, budget, depth + 1);
                    let act = Activation { vars: vars.clone(), variables: Some(&inner) };
                    let limit = cel::PER_CALL_LIMIT.min(*budget.borrow());
                    let (r, cost) = program.eval(&act, limit);
                    let remaining = budget.borrow().saturating_sub(cost);
                    *budget.borrow_mut() = remaining;
                    r.map_err(|e| {
                        EvalError::new(format!("composited variable {name:?} fails to evaluate: {}", e.message))
                    })
                }
            };
            cache.borrow_mut().insert(name.to_string(), result.clone());
            result
        }
        let resolver = |n: &str| resolve_var(n, &variables, policy, vars, &cache, &budget, 0);
        let act = Activation { vars: self.vars.clone(), variables: Some(&resolver) };
        let error_decision = |message: String| Decision { deny: fail, message, reason: None };

        // Match conditions: any false skips the policy; errors follow the failure policy.
        let mut errors = Vec::new();
        for c in spec.match_conditions.iter().flatten() {
            let decls = Declarations { composited: None, ..declarations(policy, Some(0)) };
            let mut b = *budget.borrow();
            let r = run(&c.expression, &decls, &act, &mut b);
            *budget.borrow_mut() = b;
            match r {
                Ok(Val::Bool(false)) => return Vec::new(),
                Ok(_) => {}
                Err(e) => errors.push(e),
            }
        }
        if !errors.is_empty() {
            return vec![error_decision(aggregate(&errors))];
        }

        let decls = declarations(policy, None);
        let mut out = Vec::new();
        for v in spec.validations.iter().flatten() {
            let mut b = *budget.borrow();
            if b == 0 {
                return vec![error_decision(
                    "validation failed due to running out of cost budget, no further validation rules will be run"
                        .into(),
                )];
            }
            let r = run(&v.expression, &decls, &act, &mut b);
            *budget.borrow_mut() = b;
            let decision = match r {
                Ok(Val::Bool(true)) => Decision { deny: false, message: String::new(), reason: None },
                Ok(_) => {
                    let mut message = String::new();
                    if let Some(me) = v.message_expression.as_deref().filter(|m| !m.trim().is_empty()) {
                        let mut b = *budget.borrow();
                        if let Ok(Val::Str(s)) = run(me, &decls, &act, &mut b) {
                            let s = s.trim();
                            if s.len() <= MAX_MESSAGE_BYTES && !s.contains('\n') {
                                message = s.to_string();
                            }
                        }
                        *budget.borrow_mut() = b;
                    }
                    if message.is_empty() {
                        message = v.message.as_deref().unwrap_or("").trim().to_string();
                    }
                    if message.is_empty() {
                        message = format!("failed expression: {}", v.expression.trim());
                    }
                    Decision { deny: true, message, reason: Some(v.reason.clone().unwrap_or_else(|| "Invalid".into())) }
                }
                Err(e) => error_decision(e),
            };
            out.push(decision);
        }
        out
    }
}

fn object_value(o: Option<&Object>) -> Val {
    o.map_or(Val::Null, |o| Val::from_json(&o.to_json()))
}

/// Runs every matching policy through its bindings.
pub fn validate(
    req: &AdmissionRequest,
    obj: Option<&Object>,
    old: Option<&Object>,
    cache: &WatchCache,
    warnings: &mut Vec<String>,
) -> Result<(), Status> {
    // The policy plugins never see their own resources (webhook configurations they do see).
    if matches!(req.kind, Kind::ValidatingAdmissionPolicy | Kind::ValidatingAdmissionPolicyBinding) {
        return Ok(());
    }
    let policies: Vec<ValidatingAdmissionPolicy> = cache
        .list(Kind::ValidatingAdmissionPolicy, None)
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::ValidatingAdmissionPolicy(p) => Some((**p).clone()),
            _ => None,
        })
        .collect();
    if policies.is_empty() {
        return Ok(());
    }
    let bindings: Vec<ValidatingAdmissionPolicyBinding> = cache
        .list(Kind::ValidatingAdmissionPolicyBinding, None)
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::ValidatingAdmissionPolicyBinding(b) => Some((**b).clone()),
            _ => None,
        })
        .collect();
    let namespace = if req.kind == Kind::Namespace { None } else { req.namespace_object(cache) };
    let mut denials: Vec<Denial> = Vec::new();
    for policy in &policies {
        let Some(spec) = policy.spec.as_ref() else {
            continue;
        };
        let policy_name = policy.metadata.name.clone().unwrap_or_default();
        let Some(constraints) = spec.match_constraints.as_ref() else {
            continue;
        };
        if constraints.resource_rules.as_ref().is_none_or(Vec::is_empty)
            || !criteria_match(constraints, req, obj, old, namespace.as_deref())
        {
            continue;
        }
        let fail = match fail_action(policy) {
            Ok(f) => f,
            Err(message) => {
                denials.push(Denial { policy: policy_name.clone(), binding: None, message, reason: None });
                continue;
            }
        };
        if let Some(pk) = spec.param_kind.as_ref() {
            let (api_version, kind) = (pk.api_version.as_deref().unwrap_or(""), pk.kind.as_deref().unwrap_or(""));
            if lookup_kind(api_version, kind).is_none() {
                if fail {
                    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
                    denials.push(Denial {
                        policy: policy_name.clone(),
                        binding: None,
                        message: format!(
                            "failed to configure policy: failed to find resource referenced by paramKind: '{group}/{version}, Kind={kind}'"
                        ),
                        reason: None,
                    });
                }
                continue;
            }
        }
        for binding in &bindings {
            let Some(bspec) = binding.spec.as_ref() else {
                continue;
            };
            if bspec.policy_name.as_deref() != Some(policy_name.as_str()) {
                continue;
            }
            if let Some(mr) = bspec.match_resources.as_ref() {
                if !criteria_match(mr, req, obj, old, namespace.as_deref()) {
                    continue;
                }
            }
            let binding_name = binding.metadata.name.clone().unwrap_or_default();
            let params = match collect_params(policy, binding, req, cache) {
                Ok(p) => p,
                Err(e) => {
                    if fail {
                        denials.push(Denial {
                            policy: policy_name.clone(),
                            binding: Some(binding_name.clone()),
                            message: format!("failed to configure binding: {e}"),
                            reason: None,
                        });
                    }
                    continue;
                }
            };
            for param in params {
                let mut vars = BTreeMap::new();
                vars.insert("object".to_string(), object_value(obj));
                vars.insert("oldObject".to_string(), object_value(old));
                vars.insert("request".to_string(), Val::from_json(&request_value(req)));
                vars.insert("namespaceObject".to_string(), object_value(namespace.as_deref()));
                if spec.param_kind.is_some() {
                    vars.insert("params".to_string(), object_value(param.as_ref()));
                }
                let evaluation = Evaluation { policy, vars };
                for d in evaluation.decisions(fail) {
                    if !d.deny {
                        continue;
                    }
                    for action in bspec.validation_actions.iter().flatten() {
                        match action.as_str() {
                            "Deny" => denials.push(Denial {
                                policy: policy_name.clone(),
                                binding: Some(binding_name.clone()),
                                message: d.message.clone(),
                                reason: d.reason.clone(),
                            }),
                            "Warn" => warnings.push(format!(
                                "Validation failed for ValidatingAdmissionPolicy '{policy_name}' with binding '{binding_name}': {}",
                                d.message
                            )),
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    let Some(first) = denials.into_iter().next() else {
        return Ok(());
    };
    let message = match &first.binding {
        Some(b) => {
            format!("ValidatingAdmissionPolicy '{}' with binding '{b}' denied request: {}", first.policy, first.message)
        }
        None => format!("ValidatingAdmissionPolicy '{}' denied request: {}", first.policy, first.message),
    };
    let reason = match first.reason.as_deref().unwrap_or("Invalid") {
        "Unauthorized" => Reason::Unauthorized,
        "Forbidden" => Reason::Forbidden,
        "RequestEntityTooLarge" => Reason::RequestEntityTooLarge,
        _ => Reason::Invalid,
    };
    Err(Status::admission_denied(req.kind.info(), req.display_name(), &message, reason))
}
