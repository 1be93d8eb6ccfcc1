//! The score mask's connected blobs (8-connected) and their bounding boxes.

/// One connected blob of mask pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blob {
    /// Leftmost column.
    pub min_x: usize,
    /// Rightmost column.
    pub max_x: usize,
    /// Top row.
    pub min_y: usize,
    /// Bottom row.
    pub max_y: usize,
    /// How many pixels it has.
    pub pixels: usize,
    /// The sum of its pixels' scores.
    pub score_sum: f64,
}

impl Blob {
    /// Centre of the bounding box, pixels (x, y): pixel (u, v)'s centre is at (u, v).
    pub fn center(&self) -> (f64, f64) {
        (
            (self.min_x + self.max_x) as f64 / 2.0,
            (self.min_y + self.max_y) as f64 / 2.0,
        )
    }

    /// Width and height of the bounding box, pixels.
    pub fn size(&self) -> (f64, f64) {
        (
            (self.max_x - self.min_x + 1) as f64,
            (self.max_y - self.min_y + 1) as f64,
        )
    }

    /// The mean score of its pixels.
    pub fn mean_score(&self) -> f64 {
        self.score_sum / self.pixels.max(1) as f64
    }
}

/// The 8-connected blobs of the pixels of `scores` (row-major, `width` x `height`) scoring at
/// least `threshold` (a NaN score is never in the mask), largest first (ties: the one whose
/// first pixel comes first in row-major order). `scores` shorter than `width * height` is
/// read as far as it goes.
pub fn find_blobs(scores: &[f32], width: usize, height: usize, threshold: f32) -> Vec<Blob> {
    let n = (width * height).min(scores.len());
    let in_mask = |i: usize| i < n && scores[i] >= threshold;
    let mut seen = vec![false; n];
    let mut blobs = Vec::new();
    let mut stack = Vec::new();
    for start in 0..n {
        if seen[start] || !in_mask(start) {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let mut blob = Blob {
            min_x: start % width,
            max_x: start % width,
            min_y: start / width,
            max_y: start / width,
            pixels: 0,
            score_sum: 0.0,
        };
        while let Some(i) = stack.pop() {
            let (x, y) = (i % width, i / width);
            blob.min_x = blob.min_x.min(x);
            blob.max_x = blob.max_x.max(x);
            blob.min_y = blob.min_y.min(y);
            blob.max_y = blob.max_y.max(y);
            blob.pixels += 1;
            blob.score_sum += f64::from(scores[i]);
            for ny in y.saturating_sub(1)..=(y + 1).min(height - 1) {
                for nx in x.saturating_sub(1)..=(x + 1).min(width - 1) {
                    let j = ny * width + nx;
                    if !seen.get(j).copied().unwrap_or(true) && in_mask(j) {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        blobs.push(blob);
    }
    // Stable: equal sizes keep their row-major order.
    blobs.sort_by_key(|b| std::cmp::Reverse(b.pixels));
    blobs
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A mask from rows of '#' (in, score 1) and '.' (out, score 0).
    fn mask(rows: &[&str]) -> (Vec<f32>, usize, usize) {
        let scores = rows
            .iter()
            .flat_map(|r| r.chars().map(|c| if c == '#' { 1.0 } else { 0.0 }))
            .collect();
        (scores, rows[0].len(), rows.len())
    }

    #[test]
    fn blobs_touching_at_a_corner_are_one_and_apart_are_two() {
        let (s, w, h) = mask(&["##....", "##....", "..#..#", "......"]);
        let blobs = find_blobs(&s, w, h, 0.5);
        assert_eq!(blobs.len(), 2);
        assert_eq!(
            (
                blobs[0].min_x,
                blobs[0].max_x,
                blobs[0].min_y,
                blobs[0].max_y
            ),
            (0, 2, 0, 2)
        );
        assert_eq!(blobs[0].pixels, 5);
        assert_eq!(blobs[0].center(), (1.0, 1.0));
        assert_eq!(blobs[0].size(), (3.0, 3.0));
        assert_eq!((blobs[1].center(), blobs[1].pixels), ((5.0, 2.0), 1));
    }

    #[test]
    fn a_u_shape_is_one_blob_and_the_threshold_is_inclusive() {
        let (s, w, h) = mask(&["#..#", "#..#", "####"]);
        assert_eq!(find_blobs(&s, w, h, 1.0).len(), 1);
        assert_eq!(find_blobs(&s, w, h, 1.0001), []);
        let nan = vec![f32::NAN; 4];
        assert_eq!(find_blobs(&nan, 2, 2, 0.0), []);
    }

    proptest! {
        /// Every mask pixel is in exactly one blob, inside its box; sizes sum to the mask.
        #[test]
        fn blobs_partition_the_mask(bits in proptest::collection::vec(any::<bool>(), 48), threshold in 0.1f32..0.9) {
            let scores: Vec<f32> = bits.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect();
            let blobs = find_blobs(&scores, 8, 6, threshold);
            let total: usize = blobs.iter().map(|b| b.pixels).sum();
            prop_assert_eq!(total, bits.iter().filter(|&&b| b).count());
            for (i, &b) in bits.iter().enumerate() {
                let (x, y) = (i % 8, i / 8);
                let inside = blobs.iter().filter(|bl| (bl.min_x..=bl.max_x).contains(&x) && (bl.min_y..=bl.max_y).contains(&y)).count();
                if b {
                    prop_assert!(inside >= 1);
                }
            }
        }

        /// Any score array, of any length, gives blobs inside the image and no panic.
        #[test]
        fn any_scores_give_blobs_inside_the_image(scores in proptest::collection::vec(any::<f32>(), 0..100)) {
            for b in find_blobs(&scores, 10, 8, 0.5) {
                prop_assert!(b.max_x < 10 && b.max_y < 8 && b.pixels >= 1);
            }
        }
    }
}
