//! Strongly connected components of a dependency graph, dependencies
//! first: the order in which `let` definitions are resolved and a
//! script's declarations are type-checked.

/// Tarjan's algorithm, iterative (a chain of 100 000 definitions each
/// using the one before must not exhaust the stack) over vertices
/// `0..n`. `successors(v)` lists what `v` depends on; each component
/// comes out sorted, after every component it depends on.
pub fn strongly_connected<'e>(
    n: usize,
    successors: impl Fn(usize) -> &'e [usize],
) -> Vec<Vec<usize>> {
    const UNVISITED: usize = usize::MAX;
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    // The depth-first path: each vertex with the next edge to follow.
    let mut path: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNVISITED {
            continue;
        }
        path.push((root, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut edge)) = path.last_mut() {
            if let Some(&w) = successors(v).get(*edge) {
                *edge += 1;
                if index[w] == UNVISITED {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    path.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            path.pop();
            if let Some(&(parent, _)) = path.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                component.sort_unstable();
                out.push(component);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_dependencies_first() {
        // 0 -> 1 -> 2 -> 1, 3 alone.
        let edges = [vec![1], vec![2], vec![1], vec![]];
        assert_eq!(
            strongly_connected(edges.len(), |v| &edges[v]),
            vec![vec![1, 2], vec![0], vec![3]]
        );
    }

    #[test]
    fn a_long_chain_does_not_exhaust_the_stack() {
        let n = 200_000;
        let edges: Vec<Vec<usize>> = (0..n)
            .map(|i| if i > 0 { vec![i - 1] } else { vec![] })
            .collect();
        let components = strongly_connected(edges.len(), |v| &edges[v]);
        assert_eq!(components.len(), n);
        assert_eq!(components[0], vec![0]);
        assert_eq!(components[n - 1], vec![n - 1]);
    }

    #[test]
    fn a_cycle_through_several_vertices_is_one_component() {
        let edges = [vec![1], vec![2], vec![0, 3], vec![]];
        assert_eq!(
            strongly_connected(edges.len(), |v| &edges[v]),
            vec![vec![3], vec![0, 1, 2]]
        );
    }
}
