//! CustomResourceDefinitions through the simulated kubectl: a definition is accepted and established by the
//! apiserver's own controllers, its resource is discovered, its objects are pruned, defaulted and validated
//! against its schema and printed with its columns, and deleting it deletes them. Expected lines are what
//! the real kubectl v1.32 printed against `kubeglass serve` for the same commands (tests/serve.rs judges the
//! two side by side).

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

pub const CRONTAB_CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                cronSpec:
                  type: string
                  pattern: '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'
                image:
                  type: string
                replicas:
                  type: integer
                  minimum: 1
                  maximum: 10
                  default: 1
            status:
              type: object
              properties:
                replicas:
                  type: integer
      subresources:
        status: {}
        scale:
          specReplicasPath: .spec.replicas
          statusReplicasPath: .status.replicas
      additionalPrinterColumns:
      - name: Spec
        type: string
        description: The cron spec defining the interval a CronJob is run
        jsonPath: .spec.cronSpec
      - name: Replicas
        type: integer
        jsonPath: .spec.replicas
      - name: Age
        type: date
        jsonPath: .metadata.creationTimestamp
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames:
    - ct
"#;

pub const CRONTAB: &str = r#"apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-new-cron-object
spec:
  cronSpec: "* * * * */5"
  image: my-awesome-cron-image
"#;

fn with_crontabs(seed: u64) -> Cluster {
    let mut c = Cluster::new_default(seed);
    let (out, code) = apply(&mut c, CRONTAB_CRD);
    assert_eq!(
        (out.as_str(), code),
        ("customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created\n", Some(0))
    );
    c
}

#[test]
fn a_definition_is_accepted_and_established_by_the_apiservers_controllers() {
    let mut c = with_crontabs(1);
    c.advance_ms(1_000);
    let (out, _) = kubectl(
        &mut c,
        r#"get crd crontabs.stable.example.com -o jsonpath='{range .status.conditions[*]}{.type}={.status}/{.reason}: {.message}{"\n"}{end}'"#,
    );
    assert_eq!(
        out,
        "NamesAccepted=True/NoConflicts: no conflicts found\nEstablished=True/InitialNamesAccepted: the initial names have been accepted\n"
    );
    let (out, _) = kubectl(&mut c, "get crd crontabs.stable.example.com -o jsonpath={.status.acceptedNames}");
    assert_eq!(
        out,
        r#"{"kind":"CronTab","listKind":"CronTabList","plural":"crontabs","shortNames":["ct"],"singular":"crontab"}"#
    );
    let (out, _) = kubectl(
        &mut c,
        "get crd crontabs.stable.example.com -o jsonpath='{.status.storedVersions} {.spec.conversion}'",
    );
    assert_eq!(out, r#"["v1"] {"strategy":"None"}"#);
    let (out, _) = kubectl(&mut c, "api-resources --api-group=stable.example.com -o wide");
    assert_eq!(
        out,
        "NAME       SHORTNAMES   APIVERSION              NAMESPACED   KIND      VERBS                                                        CATEGORIES\n\
         crontabs   ct           stable.example.com/v1   true         CronTab   delete,deletecollection,get,list,patch,create,update,watch   \n"
    );
    let (out, _) = kubectl(&mut c, "api-versions");
    assert!(out.contains("\nstable.example.com/v1\n"), "{out}");
}

#[test]
fn custom_objects_are_defaulted_printed_with_their_columns_and_read_back() {
    let mut c = with_crontabs(2);
    c.advance_ms(1_000);
    let (out, code) = apply(&mut c, CRONTAB);
    assert_eq!((out.as_str(), code), ("crontab.stable.example.com/my-new-cron-object created\n", Some(0)));
    c.advance_ms(60_000);
    let (out, _) = kubectl(&mut c, "get crontabs");
    assert_eq!(
        out,
        "NAME                 SPEC          REPLICAS   AGE\nmy-new-cron-object   * * * * */5   1          60s\n"
    );
    let (out, _) = kubectl(&mut c, "get ct my-new-cron-object -o jsonpath='{.spec.replicas} {.metadata.generation}'");
    assert_eq!(out, "1 1", "the schema's default, the first generation");
    // Several types: names carry the kind and group.
    let (out, _) = kubectl(&mut c, "get ct,cm");
    assert_eq!(
        out,
        "NAME                                            SPEC          REPLICAS   AGE\ncrontab.stable.example.com/my-new-cron-object   * * * * */5   1          60s\n"
    );
    let (out, _) = kubectl(&mut c, "get crontab.stable.example.com -o name");
    assert_eq!(out, "crontab.stable.example.com/my-new-cron-object\n");
    // A merge patch changes the spec, and with it the generation; a strategic merge patch is refused.
    let (out, _) = kubectl(&mut c, r#"patch ct my-new-cron-object --type=merge -p '{"spec":{"replicas":3}}'"#);
    assert_eq!(out, "crontab.stable.example.com/my-new-cron-object patched\n");
    let (out, _) = kubectl(&mut c, "get ct my-new-cron-object -o jsonpath='{.spec.replicas} {.metadata.generation}'");
    assert_eq!(out, "3 2");
    let (out, code) = kubectl(&mut c, r#"patch ct my-new-cron-object -p '{"spec":{"replicas":4}}'"#);
    assert_eq!(
        (out.as_str(), code),
        ("error: application/strategic-merge-patch+json is not supported by stable.example.com/v1, Kind=CronTab: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n", Some(1))
    );
    // A JSON patch that breaks the schema is refused; a merge patch's unknown field is dropped with a warning.
    let (out, _) = kubectl(
        &mut c,
        r#"patch ct my-new-cron-object --type=json -p '[{"op":"replace","path":"/spec/replicas","value":"x"}]'"#,
    );
    assert_eq!(
        out,
        "The CronTab \"my-new-cron-object\" is invalid: spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"\n"
    );
    let (out, _) = kubectl(&mut c, r#"patch ct my-new-cron-object --type=merge -p '{"spec":{"colour":"x"}}'"#);
    assert_eq!(
        out,
        "Warning: unknown field \"spec.colour\"\ncrontab.stable.example.com/my-new-cron-object patched (no change)\n"
    );
    let (out, _) = kubectl(&mut c, "describe ct my-new-cron-object");
    assert!(out.starts_with("Name:         my-new-cron-object\nNamespace:    default\n"), "{out}");
    assert!(out.contains("API Version:  stable.example.com/v1\nKind:         CronTab\n"), "{out}");
    assert!(
        out.contains("Spec:\n  Cron Spec:  * * * * */5\n  Image:      my-awesome-cron-image\n  Replicas:   3\n"),
        "{out}"
    );
}

#[test]
fn the_schema_prunes_refuses_and_validates_as_the_apiserver_does() {
    let mut c = with_crontabs(3);
    c.advance_ms(1_000);
    let unknown = CRONTAB.replace("  image: my-awesome-cron-image\n", "  image: x\n  colour: red\n");
    let (out, code) = apply(&mut c, &unknown);
    assert_eq!(
        (out.as_str(), code),
        ("Error from server (BadRequest): error when creating \"STDIN\": CronTab in version \"v1\" cannot be handled as a CronTab: strict decoding error: unknown field \"spec.colour\"\n", Some(1))
    );
    // Without validation the field is dropped.
    let r = c.kubectl("apply --validate=false -f -", Some(unknown.clone()), 60_000);
    assert_eq!(r.output, "crontab.stable.example.com/my-new-cron-object created\n");
    let (out, _) = kubectl(&mut c, "get ct my-new-cron-object -o jsonpath={.spec}");
    assert_eq!(out, r#"{"cronSpec":"* * * * */5","image":"x","replicas":1}"#);
    let invalid = CRONTAB.replace("my-new-cron-object", "bad").replace("\"* * * * */5\"", "often") + "  replicas: 0\n";
    let (out, code) = apply(&mut c, &invalid);
    assert_eq!(
        (out.as_str(), code),
        ("The CronTab \"bad\" is invalid: \n* spec.cronSpec: Invalid value: \"often\": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'\n* spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1\n", Some(1))
    );
    let wrong_type = CRONTAB.replace("my-new-cron-object", "typed") + "  replicas: two\n";
    let (out, _) = apply(&mut c, &wrong_type);
    assert_eq!(
        out,
        "The CronTab \"typed\" is invalid: spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"\n"
    );
}

#[test]
fn the_status_subresource_is_the_only_way_to_write_the_status() {
    let mut c = with_crontabs(4);
    c.advance_ms(1_000);
    let with_status = format!("{CRONTAB}status:\n  replicas: 5\n");
    apply(&mut c, &with_status);
    let (out, _) = kubectl(&mut c, "get ct my-new-cron-object -o jsonpath={.status}");
    assert_eq!(out, "", "a create drops the status");
    let (out, _) = kubectl(
        &mut c,
        r#"patch ct my-new-cron-object --subresource=status --type=merge -p '{"status":{"replicas":5}}'"#,
    );
    assert_eq!(out, "crontab.stable.example.com/my-new-cron-object patched\n");
    let (out, _) = kubectl(&mut c, "get ct my-new-cron-object -o jsonpath='{.status.replicas} {.metadata.generation}'");
    assert_eq!(out, "5 1", "a status change leaves the generation");
}

#[test]
fn deleting_the_definition_deletes_its_objects_first() {
    let mut c = with_crontabs(5);
    c.advance_ms(1_000);
    apply(&mut c, CRONTAB);
    let (out, code) = kubectl(&mut c, "delete crd crontabs.stable.example.com");
    assert_eq!(
        (out.as_str(), code),
        ("customresourcedefinition.apiextensions.k8s.io \"crontabs.stable.example.com\" deleted\n", Some(0))
    );
    let (out, _) = kubectl(&mut c, "get crd");
    assert_eq!(out, "No resources found\n");
    let (out, code) = kubectl(&mut c, "get ct");
    assert_eq!((out.as_str(), code), ("error: the server doesn't have a resource type \"ct\"\n", Some(1)));
    // A definition made again starts empty.
    apply(&mut c, CRONTAB_CRD);
    c.advance_ms(1_000);
    let (out, _) = kubectl(&mut c, "get ct");
    assert_eq!(out, "No resources found in default namespace.\n");
}

#[test]
fn a_name_another_definition_of_the_group_holds_is_not_accepted() {
    let mut c = with_crontabs(6);
    c.advance_ms(1_000);
    let rival = CRONTAB_CRD
        .replace("crontabs.stable.example.com", "crontimers.stable.example.com")
        .replace("plural: crontabs", "plural: crontimers")
        .replace("singular: crontab", "singular: crontimer")
        .replace("kind: CronTab", "kind: CronTimer");
    apply(&mut c, &rival);
    c.advance_ms(1_000);
    let (out, _) = kubectl(
        &mut c,
        "get crd crontimers.stable.example.com -o jsonpath='{.status.conditions[0].status} {.status.conditions[0].reason}: {.status.conditions[0].message}'",
    );
    assert_eq!(out, "False ShortNamesConflict: \"ct\" is already in use");
    let (out, _) = kubectl(&mut c, "get crd crontimers.stable.example.com -o jsonpath={.status.conditions[1].reason}");
    assert_eq!(out, "NotAccepted");
}

#[test]
fn the_scale_subresource_reads_and_writes_the_replicas_paths() {
    let mut c = with_crontabs(7);
    c.advance_ms(1_000);
    apply(&mut c, CRONTAB);
    let (out, code) = kubectl(&mut c, "scale ct my-new-cron-object --replicas=4");
    assert_eq!((out.as_str(), code), ("crontab.stable.example.com/my-new-cron-object scaled\n", Some(0)));
    let (out, _) = kubectl(&mut c, "get ct my-new-cron-object -o jsonpath='{.spec.replicas} {.metadata.generation}'");
    assert_eq!(out, "4 2");
    let (out, _) =
        kubectl(&mut c, "get --raw /apis/stable.example.com/v1/namespaces/default/crontabs/my-new-cron-object/scale");
    let scale: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&scale["kind"], &scale["spec"]["replicas"], &scale["status"]["replicas"]),
        (&"Scale".into(), &4.into(), &0.into())
    );
    // The object is validated after the scale, against the schema's maximum.
    let (out, _) = kubectl(&mut c, "scale ct my-new-cron-object --replicas=40");
    assert_eq!(
        out,
        "The CronTab \"my-new-cron-object\" is invalid: spec.replicas: Invalid value: 40: spec.replicas in body should be less than or equal to 10\n"
    );
    let (out, code) = kubectl(&mut c, "scale ct my-new-cron-object --current-replicas=2 --replicas=3");
    assert_eq!((out.as_str(), code), ("error: Expected replicas to be 2, was 4\n", Some(1)));
}

#[test]
fn an_object_is_stored_at_the_storage_version_and_shown_at_the_one_asked_for() {
    let mut c = Cluster::new_default(8);
    let two_versions = CRONTAB_CRD.replace(
        "  versions:\n    - name: v1\n",
        "  versions:\n    - name: v1beta1\n      served: true\n      storage: false\n      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n    - name: v1\n",
    );
    let (out, _) = apply(&mut c, &two_versions);
    assert!(out.ends_with("created\n"), "{out}");
    c.advance_ms(1_000);
    let (out, _) = kubectl(&mut c, "get --raw /apis/stable.example.com");
    let group: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(group["preferredVersion"]["version"], "v1", "v1 is newer than v1beta1: {out}");
    let beta = CRONTAB.replace("stable.example.com/v1", "stable.example.com/v1beta1");
    let (out, _) = apply(&mut c, &beta);
    assert_eq!(out, "crontab.stable.example.com/my-new-cron-object created\n");
    let (out, _) = kubectl(&mut c, "get ct my-new-cron-object -o jsonpath={.apiVersion}");
    assert_eq!(out, "stable.example.com/v1");
    let (out, _) =
        kubectl(&mut c, "get crontabs.v1beta1.stable.example.com my-new-cron-object -o jsonpath={.apiVersion}");
    assert_eq!(out, "stable.example.com/v1beta1");
    let (out, _) = kubectl(&mut c, "get --raw /apis/stable.example.com/v1beta1/namespaces/default/crontabs");
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&list["apiVersion"], &list["items"][0]["apiVersion"]),
        (&"stable.example.com/v1beta1".into(), &serde_json::Value::Null)
    );
    let (out, _) = kubectl(&mut c, "get crd crontabs.stable.example.com -o jsonpath={.status.storedVersions}");
    assert_eq!(out, r#"["v1"]"#);
}

#[test]
fn a_create_just_after_the_definition_is_established_waits_two_seconds() {
    let mut c = with_crontabs(9);
    // Discovery lists the definition once it is Established (a few milliseconds after its creation).
    c.advance_ms(100);
    let before = c.now().ms();
    let (out, _) = apply(&mut c, CRONTAB);
    assert_eq!(out, "crontab.stable.example.com/my-new-cron-object created\n");
    let first = c.now().ms() - before;
    assert!((2_000..3_000).contains(&first), "the CRD handler's sleep: {first} ms");
    // Later creates go at once.
    let before = c.now().ms();
    apply(&mut c, &CRONTAB.replace("my-new-cron-object", "second"));
    assert!(c.now().ms() - before < 1_000, "{} ms", c.now().ms() - before);
}
