//! ONNX inference on the CPU: the verified model's bytes loaded with `tract-onnx`, run on one
//! `rgb8` camera image, its per-pixel score mask turned into bounding boxes.
//!
//! The mask is the pixels whose score is at least the threshold; each **connected blob** of it
//! (8-connected: pixels touching at an edge or a corner) of at least `min_blob_pixels` pixels
//! is one [`Detection`]: its bounding box, centre and size in pixels (x to the right, y down,
//! the centre of pixel (u, v) at (u, v), as the camera's intrinsics have it), and the mean
//! score of its pixels. So two targets side by side give two detections, and a few stray
//! pixels give none.
//!
//! [`Segmenter::detect`] also measures its own wall-clock duration (the image's conversion,
//! the model and the blobs: what a frame costs the payload).

use std::time::{Duration, Instant};

use fieldproof_msgs::sensor_msgs::Image;
use tract_onnx::prelude::*;
use tract_onnx::tract_hir::infer::Factoid;

pub mod blobs;
pub mod report;

pub use blobs::{find_blobs, Blob};

/// The camera image the model takes: width in pixels.
pub const IMAGE_WIDTH: usize = 64;
/// The camera image the model takes: height in pixels.
pub const IMAGE_HEIGHT: usize = 48;
/// The one encoding the model takes.
pub const IMAGE_ENCODING: &str = "rgb8";
/// The model's input shape, NCHW (the artifact's `input_shape`).
pub const INPUT_SHAPE: [usize; 4] = [1, 3, IMAGE_HEIGHT, IMAGE_WIDTH];
/// The model's output shape: one score per pixel.
pub const OUTPUT_SHAPE: [usize; 4] = [1, 1, IMAGE_HEIGHT, IMAGE_WIDTH];
/// The class every detection reports (`results[0].hypothesis.class_id`).
pub const TARGET_CLASS_ID: &str = "inspection_target";

/// Why a model could not be loaded or an image could not be processed.
#[derive(Debug, thiserror::Error)]
pub enum InferenceError {
    /// The model bytes are not an ONNX model tract can run.
    #[error("model: {0}")]
    Model(String),
    /// The model's input or output is not the shape this node feeds and reads.
    #[error("model {which} shape: {found} is not {expected:?}")]
    ModelShape {
        /// `input` or `output`.
        which: &'static str,
        /// The model's shape, as tract states it.
        found: String,
        /// The shape required.
        expected: [usize; 4],
    },
    /// An image field that does not fit (the field, its value and what it must be).
    #[error("image.{field}: {value} {requirement}")]
    Image {
        /// The `sensor_msgs/Image` field.
        field: &'static str,
        /// Its value.
        value: String,
        /// What it must be.
        requirement: String,
    },
    /// Running the model failed.
    #[error("running the model: {0}")]
    Run(String),
}

/// One target found in an image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detection {
    /// The blob's bounding box and pixel count.
    pub blob: Blob,
    /// The mean score of its pixels (0..1).
    pub score: f64,
}

impl Detection {
    /// Centre of the bounding box, pixels (x, y).
    pub fn center(&self) -> (f64, f64) {
        self.blob.center()
    }
    /// Width and height of the bounding box, pixels.
    pub fn size(&self) -> (f64, f64) {
        self.blob.size()
    }
}

/// What one image gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The targets found, largest blob first.
    pub detections: Vec<Detection>,
    /// Wall-clock duration of [`Segmenter::detect`] for this image.
    pub duration: Duration,
}

/// The segmentation model, loaded and optimised for the CPU once, run per image.
#[derive(Debug)]
pub struct Segmenter {
    plan: TypedRunnableModel<TypedModel>,
}

impl Segmenter {
    /// Loads ONNX model bytes (the verified artifact's `model`) for input
    /// [`INPUT_SHAPE`]; its output must be [`OUTPUT_SHAPE`].
    pub fn load(model: &[u8]) -> Result<Segmenter, InferenceError> {
        let model_error = |e: TractError| InferenceError::Model(format!("{e:#}"));
        let inference_model = tract_onnx::onnx()
            .model_for_read(&mut &model[..])
            .map_err(model_error)?;
        let declared = inference_model.input_fact(0).map_err(model_error)?.clone();
        let input: InferenceFact = f32::fact(INPUT_SHAPE).into();
        // The model's own input fact must agree with the camera's (a model for 640x480 is refused
        // here, not fed a 64x48 image).
        declared
            .unify(&input)
            .map_err(|_| InferenceError::ModelShape {
                which: "input",
                found: format!("{declared:?}"),
                expected: INPUT_SHAPE,
            })?;
        let plan = inference_model
            .with_input_fact(0, input)
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(model_error)?;
        let output = plan.model().output_fact(0).map_err(model_error)?;
        if output.shape.as_concrete() != Some(&OUTPUT_SHAPE[..])
            || output.datum_type != f32::datum_type()
        {
            return Err(InferenceError::ModelShape {
                which: "output",
                found: format!("{output:?}"),
                expected: OUTPUT_SHAPE,
            });
        }
        Ok(Segmenter { plan })
    }

    /// The per-pixel scores of an `rgb8` [`IMAGE_WIDTH`] x [`IMAGE_HEIGHT`] image, row-major.
    pub fn scores(&self, image: &Image) -> Result<Vec<f32>, InferenceError> {
        let input = input_tensor(image)?;
        let outputs = self
            .plan
            .run(tvec!(input.into_tvalue()))
            .map_err(|e| InferenceError::Run(format!("{e:#}")))?;
        let scores = outputs[0]
            .to_array_view::<f32>()
            .map_err(|e| InferenceError::Run(format!("{e:#}")))?;
        Ok(scores.iter().copied().collect())
    }

    /// The targets in an image: blobs of at least `min_blob_pixels` pixels scoring at least
    /// `threshold`, with the wall-clock duration of the whole call.
    pub fn detect(
        &self,
        image: &Image,
        threshold: f32,
        min_blob_pixels: usize,
    ) -> Result<Analysis, InferenceError> {
        let start = Instant::now();
        let scores = self.scores(image)?;
        let detections = find_blobs(&scores, IMAGE_WIDTH, IMAGE_HEIGHT, threshold)
            .into_iter()
            .filter(|b| b.pixels >= min_blob_pixels)
            .map(|blob| Detection {
                score: blob.mean_score(),
                blob,
            })
            .collect();
        Ok(Analysis {
            detections,
            duration: start.elapsed(),
        })
    }
}

/// Checks the image against what the model takes: encoding, width, height, step and data
/// length; the error names the first field that does not fit and its value.
pub fn check_image(image: &Image) -> Result<(), InferenceError> {
    let bad = |field, value: String, requirement: String| InferenceError::Image {
        field,
        value,
        requirement,
    };
    if image.encoding != IMAGE_ENCODING {
        return Err(bad(
            "encoding",
            format!("{:?}", image.encoding),
            format!("is not {IMAGE_ENCODING}"),
        ));
    }
    if image.width as usize != IMAGE_WIDTH {
        return Err(bad(
            "width",
            image.width.to_string(),
            format!("is not {IMAGE_WIDTH}"),
        ));
    }
    if image.height as usize != IMAGE_HEIGHT {
        return Err(bad(
            "height",
            image.height.to_string(),
            format!("is not {IMAGE_HEIGHT}"),
        ));
    }
    let row = IMAGE_WIDTH * 3;
    let step = image.step as usize;
    if step < row {
        return Err(bad(
            "step",
            step.to_string(),
            format!("is below {row} (3 bytes x {IMAGE_WIDTH} pixels)"),
        ));
    }
    let needed = step * IMAGE_HEIGHT;
    if image.data.len() != needed {
        return Err(bad(
            "data",
            format!("{} bytes", image.data.len()),
            format!("is not step {step} x height {IMAGE_HEIGHT} = {needed}"),
        ));
    }
    Ok(())
}

/// The image as the model's input: NCHW float32, RGB scaled to 0..1 (a row's padding beyond
/// 3 x width bytes skipped).
fn input_tensor(image: &Image) -> Result<Tensor, InferenceError> {
    check_image(image)?;
    let step = image.step as usize;
    let input = tract_ndarray::Array4::from_shape_fn(INPUT_SHAPE, |(_, channel, y, x)| {
        f32::from(image.data[y * step + x * 3 + channel]) / 255.0
    });
    Ok(input.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fieldproof_msgs::std_msgs::Header;

    /// The committed model (the artifact's bytes; the gate is tested in tests/gate_cases.rs).
    fn model() -> Segmenter {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/artifacts/inspection_seg/model.onnx"
        );
        Segmenter::load(&std::fs::read(path).unwrap()).unwrap()
    }

    const MAGENTA: [u8; 3] = [230, 30, 210];
    const GROUND: [u8; 3] = [120, 110, 90];

    /// A 64x48 rgb8 frame of `background` with `patch` over columns x0..x1, rows y0..y1.
    fn frame(background: [u8; 3], patches: &[([u8; 3], [usize; 4])]) -> Image {
        let mut data = Vec::with_capacity(IMAGE_WIDTH * IMAGE_HEIGHT * 3);
        for y in 0..IMAGE_HEIGHT {
            for x in 0..IMAGE_WIDTH {
                let colour = patches
                    .iter()
                    .find(|(_, [x0, x1, y0, y1])| {
                        (*x0..*x1).contains(&x) && (*y0..*y1).contains(&y)
                    })
                    .map_or(background, |(c, _)| *c);
                data.extend_from_slice(&colour);
            }
        }
        Image {
            header: Header::default(),
            height: IMAGE_HEIGHT as u32,
            width: IMAGE_WIDTH as u32,
            encoding: "rgb8".into(),
            is_bigendian: 0,
            step: (IMAGE_WIDTH * 3) as u32,
            data,
        }
    }

    #[test]
    fn a_target_patch_is_found_where_it_is() {
        let segmenter = model();
        // [x0, x1, y0, y1) patches at the corners, the middle and an edge, odd and even sizes.
        for patch in [
            [10, 17, 5, 20],
            [40, 52, 30, 44],
            [0, 6, 0, 9],
            [58, 64, 40, 48],
            [29, 34, 20, 27],
            [20, 44, 0, 48],
        ] {
            let analysis = segmenter
                .detect(&frame(GROUND, &[(MAGENTA, patch)]), 0.5, 4)
                .unwrap();
            let [x0, x1, y0, y1] = patch.map(|v| v as f64);
            let want = ((x0 + x1 - 1.0) / 2.0, (y0 + y1 - 1.0) / 2.0);
            assert_eq!(analysis.detections.len(), 1, "{patch:?}: {analysis:?}");
            let d = analysis.detections[0];
            let (cx, cy) = d.center();
            assert!(
                (cx - want.0).abs() <= 2.0 && (cy - want.1).abs() <= 2.0,
                "{patch:?}: centre ({cx}, {cy}), want {want:?}"
            );
            // Against ground, the 3x3 smoothing keeps the patch's size.
            assert_eq!(d.size(), (x1 - x0, y1 - y0), "{patch:?}");
            assert!(d.score > 0.9, "{patch:?}: {}", d.score);
        }
    }

    #[test]
    fn two_targets_are_two_detections_largest_first() {
        let analysis = model()
            .detect(
                &frame(
                    GROUND,
                    &[(MAGENTA, [2, 8, 2, 8]), (MAGENTA, [30, 50, 10, 40])],
                ),
                0.5,
                4,
            )
            .unwrap();
        let centres: Vec<_> = analysis.detections.iter().map(|d| d.center()).collect();
        assert_eq!(centres, [(39.5, 24.5), (4.5, 4.5)]);
    }

    #[test]
    fn a_frame_without_the_target_has_no_detection() {
        let segmenter = model();
        for background in [GROUND, [110, 160, 235], [230, 230, 230], [0, 0, 0]] {
            let analysis = segmenter.detect(&frame(background, &[]), 0.5, 4).unwrap();
            assert_eq!(analysis.detections, [], "{background:?}");
        }
        // The palette's other colours (the simulator's obstacles) are not the target.
        for colour in fieldproof_sim::world::PALETTE {
            let analysis = segmenter
                .detect(&frame(GROUND, &[(colour, [10, 40, 10, 40])]), 0.5, 4)
                .unwrap();
            assert_eq!(analysis.detections, [], "{colour:?}");
        }
    }

    #[test]
    fn a_lone_pixel_is_not_a_detection() {
        let analysis = model()
            .detect(&frame(GROUND, &[(MAGENTA, [20, 21, 20, 21])]), 0.5, 1)
            .unwrap();
        assert_eq!(analysis.detections, []);
    }

    #[test]
    fn a_padded_row_step_is_read_row_by_row() {
        let tight = frame(GROUND, &[(MAGENTA, [10, 20, 10, 20])]);
        let mut padded = tight.clone();
        padded.step = (IMAGE_WIDTH * 3 + 4) as u32;
        padded.data = tight
            .data
            .chunks(IMAGE_WIDTH * 3)
            .flat_map(|row| row.iter().copied().chain([1, 2, 3, 4]))
            .collect();
        let segmenter = model();
        let a = segmenter.detect(&tight, 0.5, 4).unwrap();
        let b = segmenter.detect(&padded, 0.5, 4).unwrap();
        assert_eq!(a.detections, b.detections);
        assert_eq!(a.detections.len(), 1);
    }

    #[test]
    fn a_bad_image_is_an_error_naming_the_field_and_value() {
        let segmenter = model();
        let good = frame(GROUND, &[]);
        type Spoil = fn(&mut Image);
        let cases: [(Spoil, &str); 6] = [
            (
                |i| i.encoding = "bgr8".into(),
                "image.encoding: \"bgr8\" is not rgb8",
            ),
            (|i| i.width = 640, "image.width: 640 is not 64"),
            (|i| i.height = 0, "image.height: 0 is not 48"),
            (
                |i| i.step = 100,
                "image.step: 100 is below 192 (3 bytes x 64 pixels)",
            ),
            (
                |i| i.data.truncate(100),
                "image.data: 100 bytes is not step 192 x height 48 = 9216",
            ),
            (
                |i| i.data.clear(),
                "image.data: 0 bytes is not step 192 x height 48 = 9216",
            ),
        ];
        for (spoil, want) in cases {
            let mut image = good.clone();
            spoil(&mut image);
            let err = segmenter.detect(&image, 0.5, 4).unwrap_err();
            assert_eq!(err.to_string(), want);
        }
    }

    #[test]
    fn bytes_that_are_not_onnx_are_refused() {
        let err = Segmenter::load(b"not a model").unwrap_err();
        assert!(matches!(err, InferenceError::Model(_)), "{err}");
    }
}
