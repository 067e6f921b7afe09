//! A colour for each cell of a partition, for the drawings made outside
//! the terminal (DOT for Graphviz, SVG): every cell its own colour, so a
//! reader can tell cell 13 from cell 1 at a glance.
//!
//! The first twelve are Graphviz's `set312` (soft colours that keep black
//! text readable, the scheme the DOT drawing always used); past twelve,
//! colours of the same lightness are spread round the hue circle by the
//! golden angle, so each new one lies far from the last few. A scheme of
//! twelve cannot be told apart by eye past its end, so a drawing with
//! more cells than [`SCHEME`] also carries a legend ([`needs_legend`]).

/// Graphviz's `set312`, in its order.
pub const SCHEME: [&str; 12] = [
    "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
    "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f",
];

/// The fill of a component in no cell (the partition left it out).
pub const NO_CELL: &str = "#ffffff";

/// `cells` colours, pairwise different, as `#rrggbb`.
pub fn cell_colours(cells: usize) -> Vec<String> {
    let mut out: Vec<String> = SCHEME.iter().take(cells).map(|c| c.to_string()).collect();
    let mut k = 0u32;
    while out.len() < cells {
        // Two lightnesses alternate, so neighbours on the circle differ
        // in lightness too.
        let hue = (f64::from(k) * 137.507_764) % 360.0;
        let lightness = if k.is_multiple_of(2) { 0.80 } else { 0.68 };
        let colour = hsl(hue, 0.60, lightness);
        k += 1;
        if !out.contains(&colour) && colour != NO_CELL {
            out.push(colour);
        }
    }
    out
}

/// Whether a drawing of `cells` cells needs a legend: more cells than
/// the scheme has colours.
pub fn needs_legend(cells: usize) -> bool {
    cells > SCHEME.len()
}

/// HSL (hue in degrees, saturation and lightness in 0..=1) as `#rrggbb`.
fn hsl(hue: f64, saturation: f64, lightness: f64) -> String {
    let chroma = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let h = hue / 60.0;
    let x = chroma * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (chroma, x, 0.0),
        1 => (x, chroma, 0.0),
        2 => (0.0, chroma, x),
        3 => (0.0, x, chroma),
        4 => (x, 0.0, chroma),
        _ => (chroma, 0.0, x),
    };
    let m = lightness - chroma / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_has_its_own_colour() {
        let colours = cell_colours(200);
        assert_eq!(colours.len(), 200);
        for (i, a) in colours.iter().enumerate() {
            assert!(!colours[i + 1..].contains(a), "{a} twice");
            assert_ne!(a, NO_CELL);
        }
        assert_eq!(colours[..12], SCHEME.map(String::from));
        assert!(!needs_legend(12) && needs_legend(13));
    }

    #[test]
    fn hsl_is_read_as_css_reads_it() {
        assert_eq!(hsl(0.0, 1.0, 0.5), "#ff0000");
        assert_eq!(hsl(120.0, 1.0, 0.5), "#00ff00");
        assert_eq!(hsl(240.0, 1.0, 0.25), "#000080");
        assert_eq!(hsl(0.0, 0.0, 1.0), "#ffffff");
    }
}
