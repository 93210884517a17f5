//! Opaque, stable cursors over an ordered registry: a cursor names the next
//! item, so pages stay correct while items are added elsewhere.

use indexmap::IndexMap;

use crate::jsonrpc::RpcError;

/// One page of `items` starting at `cursor`, and the cursor of the next page.
pub(crate) fn page<T: Clone, S: std::hash::BuildHasher>(
    items: &IndexMap<String, T, S>,
    cursor: Option<&str>,
    size: usize,
) -> Result<(Vec<T>, Option<String>), RpcError> {
    let start = match cursor {
        None => 0,
        Some(cursor) => {
            let key = decode(cursor)
                .ok_or_else(|| RpcError::invalid_params(format!("invalid cursor `{cursor}`")))?;
            items.get_index_of(&key).ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "cursor `{cursor}` no longer points at an item; list again from the start"
                ))
            })?
        }
    };
    let size = size.max(1);
    let page: Vec<T> = items.values().skip(start).take(size).cloned().collect();
    let next = items.get_index(start + size).map(|(key, _)| encode(key));
    Ok((page, next))
}

fn encode(key: &str) -> String {
    key.bytes().map(|b| format!("{b:02x}")).collect()
}

fn decode(cursor: &str) -> Option<String> {
    if !cursor.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..cursor.len())
        .step_by(2)
        .map(|i| {
            cursor
                .get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect();
    String::from_utf8(bytes?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_follow_cursors_and_reject_bad_ones() {
        let items: IndexMap<String, u32> = (0..5).map(|i| (format!("k{i}"), i)).collect();
        let (first, next) = page(&items, None, 2).unwrap();
        assert_eq!(first, [0, 1]);
        let (second, next) = page(&items, next.as_deref(), 2).unwrap();
        assert_eq!(second, [2, 3]);
        let (third, next) = page(&items, next.as_deref(), 2).unwrap();
        assert_eq!((third, next), (vec![4], None));
        assert!(page(&items, Some("zz"), 2).is_err());
        assert!(page(&items, Some(&encode("gone")), 2).is_err());
    }
}
