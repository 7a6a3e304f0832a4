//! Which objects each owner controls: `namespace/name` of an owner → keys of the objects that name it as their
//! controller, kept from informer changes so a sync reads its own objects instead of walking every object of
//! the kind. Counterpart: the owner indexers client-go informers are given (`cache.Indexers`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::api::{Kind, Object};

use super::Cx;

#[derive(Debug, Default)]
pub struct Owned(BTreeMap<String, BTreeSet<String>>);

impl Owned {
    /// Records (`present`) or forgets that `owner` controls the object `member`; an owner left with nothing is
    /// dropped.
    pub fn set(&mut self, owner: &str, member: &str, present: bool) {
        if present {
            self.0.entry(owner.to_string()).or_default().insert(member.to_string());
        } else if let Some(set) = self.0.get_mut(owner) {
            set.remove(member);
            if set.is_empty() {
                self.0.remove(owner);
            }
        }
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The cached objects of `kind` that `owner` controls.
    pub fn cached(&self, owner: &str, kind: Kind, cx: &Cx) -> Vec<Arc<Object>> {
        self.0.get(owner).into_iter().flatten().filter_map(|k| cx.get(kind, k)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owner_left_with_nothing_is_dropped() {
        let mut o = Owned::default();
        o.set("default/web", "default/web-1", true);
        o.set("default/web", "default/web-2", true);
        o.set("default/web", "default/web-1", false);
        assert_eq!(o.0["default/web"], BTreeSet::from(["default/web-2".to_string()]));
        o.set("default/web", "default/web-2", false);
        assert!(o.0.is_empty());
        o.set("default/other", "default/x", false);
        assert!(o.0.is_empty(), "forgetting what was never recorded records nothing");
    }
}
