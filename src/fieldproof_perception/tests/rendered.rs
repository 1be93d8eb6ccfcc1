//! Detections on frames the simulator's own renderer draws (`fieldproof_sim` as a library, no
//! DDS): quad_ref's 64x48 camera, the committed model, the target at known image positions.
//! The expected position is the target's projection through the camera's pinhole
//! intrinsics: the column of its axis's bearing, the row midway between the projected top
//! and bottom of its near face (both clipped to the image). The detected box's centre must be
//! within 2 px of it.

use fieldproof_msgs::sensor_msgs::Image;
use fieldproof_perception::inference::{Analysis, Segmenter};
use fieldproof_robots::{CameraSpec, World};
use fieldproof_sim::math::Pose;
use fieldproof_sim::sensors::camera::{self, Intrinsics};
use fieldproof_sim::sensors::frame_offset;
use fieldproof_sim::world::SimWorld;
use fieldproof_sim::{SimConfig, Simulation, Spawn, SpawnSpec};
use fieldproof_testkit::repo_root;

/// How far (pixels, each axis) the box centre may be from the projected centre.
const TOLERANCE_PX: f64 = 2.0;

fn segmenter() -> Segmenter {
    let path = repo_root().join("src/fieldproof_perception/artifacts/inspection_seg/model.onnx");
    Segmenter::load(&std::fs::read(path).unwrap()).unwrap()
}

/// A magenta post (the inspection target's colour) `radius` m wide and `height` m tall.
struct Post {
    x: f64,
    y: f64,
    radius: f64,
    height: f64,
}

/// A world of the given posts, no bounds.
fn world_of(posts: &[Post]) -> World {
    let mut text = String::from(
        "name: posts\norigin: { latitude_deg: 47.0, longitude_deg: 8.0, altitude_m: 400.0 }\n\
         obstacles:\n",
    );
    for (i, p) in posts.iter().enumerate() {
        text.push_str(&format!(
            "  - {{ name: post{i}, shape: circle, center: [{}, {}], radius_m: {}, height_m: {}, \
             color_rgb: [230, 30, 210] }}\n",
            p.x, p.y, p.radius, p.height
        ));
    }
    World::from_yaml("posts.yaml", &text).unwrap()
}

/// quad_ref's camera at a pose of the quad in a world: the renderer's inputs.
struct View {
    sim: Simulation,
    world: SimWorld,
    spec: CameraSpec,
    mount: Pose,
}

impl View {
    fn new(world: &World, x: f64, y: f64, z: f64, yaw_deg: f64) -> View {
        let manifest = repo_root().join("robots/quad_ref/robot.yaml");
        let spec = SpawnSpec::parse(&format!(
            "ns=quad1,manifest={},x={x},y={y},z={z},yaw_deg={yaw_deg}",
            manifest.display()
        ))
        .unwrap();
        let spawn = Spawn::resolve(&spec, 0, world).unwrap();
        let sim = Simulation::new(world, &[spawn], SimConfig::default());
        let quad = &sim.vehicles()[0];
        let camera = quad
            .manifest
            .sensors
            .iter()
            .find_map(|s| s.camera.clone())
            .expect("quad_ref has a camera");
        let mount = frame_offset(&quad.manifest, "camera_link");
        View {
            world: SimWorld::new(world),
            sim,
            spec: camera,
            mount,
        }
    }

    /// The frame the simulator would publish on camera/image.
    fn image(&self) -> Image {
        camera::render(&self.spec, &self.mount, &self.world, self.sim.vehicles(), 0).image(
            "rgb8",
            1_000_000_000,
            "camera_optical_link",
        )
    }

    /// The camera's pose in the world.
    fn camera_pose(&self) -> Pose {
        let v = &self.sim.vehicles()[0];
        let p = v.pose.apply([self.mount.x, self.mount.y, self.mount.z]);
        Pose {
            x: p[0],
            y: p[1],
            z: p[2],
            yaw: v.pose.yaw + self.mount.yaw,
        }
    }

    /// Where a post (a circle obstacle) projects: (column, row) of its centre.
    fn projected_centre(&self, x: f64, y: f64, radius: f64, height: f64) -> (f64, f64) {
        let intr = Intrinsics::new(&self.spec);
        let cam = self.camera_pose();
        let (dx, dy) = (x - cam.x, y - cam.y);
        let off = dy.atan2(dx) - cam.yaw;
        let u = intr.cx - intr.f * off.tan();
        let planar = ((dx * dx + dy * dy).sqrt() - radius) * off.cos();
        let top = intr.cy - intr.f * (height - cam.z) / planar;
        let bottom = intr.cy + intr.f * cam.z / planar;
        let last_row = f64::from(intr.height - 1);
        (u, (top.max(0.0) + bottom.min(last_row)) / 2.0)
    }
}

fn assert_one_near(analysis: &Analysis, want: (f64, f64), case: &str) {
    assert_eq!(analysis.detections.len(), 1, "{case}: {analysis:?}");
    let (x, y) = analysis.detections[0].center();
    assert!(
        (x - want.0).abs() <= TOLERANCE_PX && (y - want.1).abs() <= TOLERANCE_PX,
        "{case}: box centre ({x:.2}, {y:.2}), projected ({:.2}, {:.2})",
        want.0,
        want.1
    );
}

/// From the inspection goal the mast fills the middle of the image; turning the quad moves
/// it left or right by the bearing; facing away, nothing is detected (the wall, towers,
/// ground and sky are not the target).
#[test]
fn the_inspection_mast_is_detected_where_it_projects() {
    let world = World::load(repo_root().join("worlds/inspection.yaml")).unwrap();
    let mast = world
        .obstacles
        .iter()
        .find(|o| o.name == "inspection_target")
        .unwrap();
    let (mx, my, r, h) = (
        mast.center[0],
        mast.center[1],
        mast.radius_m.unwrap(),
        mast.height_m,
    );
    let segmenter = segmenter();
    // (x, y, yaw_deg): the goal, turned, sideways, farther back.
    for (x, y, yaw_deg) in [
        (14.0, 0.0, 0.0),
        (14.0, 0.0, 12.0),
        (14.0, 0.0, -15.0),
        (14.0, 1.0, 0.0),
        (6.0, -3.0, 10.0),
    ] {
        let view = View::new(&world, x, y, 5.0, yaw_deg);
        let analysis = segmenter.detect(&view.image(), 0.5, 4).unwrap();
        let want = view.projected_centre(mx, my, r, h);
        assert_one_near(
            &analysis,
            want,
            &format!("quad at ({x}, {y}) yaw {yaw_deg}"),
        );
    }
    let away = View::new(&world, 14.0, 0.0, 5.0, 180.0);
    let analysis = segmenter.detect(&away.image(), 0.5, 4).unwrap();
    assert_eq!(analysis.detections, [], "facing away: {analysis:?}");
}

/// A post short enough to be seen whole (sky above it, ground below), at several positions
/// across the image: its box centre follows its projection in both axes.
#[test]
fn a_whole_post_is_detected_at_its_projection_across_the_image() {
    let segmenter = segmenter();
    for (x, y, radius, height) in [
        (8.0, 0.0, 0.3, 2.0),
        (8.0, 2.5, 0.3, 2.0),
        (9.0, -3.0, 0.4, 1.5),
        (12.0, 1.0, 0.5, 3.0),
        (6.0, -1.0, 0.25, 1.2),
    ] {
        let world = world_of(&[Post {
            x,
            y,
            radius,
            height,
        }]);
        let view = View::new(&world, 0.0, 0.0, 1.0, 0.0);
        let analysis = segmenter.detect(&view.image(), 0.5, 4).unwrap();
        let want = view.projected_centre(x, y, radius, height);
        assert_one_near(&analysis, want, &format!("post at ({x}, {y})"));
    }
}

/// Two posts apart in the image are two detections, each at its own projection.
#[test]
fn two_posts_are_two_detections() {
    let posts = [
        Post {
            x: 8.0,
            y: 2.0,
            radius: 0.3,
            height: 2.0,
        },
        Post {
            x: 8.0,
            y: -2.0,
            radius: 0.3,
            height: 2.0,
        },
    ];
    let view = View::new(&world_of(&posts), 0.0, 0.0, 1.0, 0.0);
    let analysis = segmenter().detect(&view.image(), 0.5, 4).unwrap();
    assert_eq!(analysis.detections.len(), 2, "{analysis:?}");
    let mut centres: Vec<(f64, f64)> = analysis.detections.iter().map(|d| d.center()).collect();
    centres.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Left of the image is +y (the camera looks along +x).
    for (got, post) in centres.iter().zip([&posts[0], &posts[1]]) {
        let want = view.projected_centre(post.x, post.y, post.radius, post.height);
        assert!(
            (got.0 - want.0).abs() <= TOLERANCE_PX && (got.1 - want.1).abs() <= TOLERANCE_PX,
            "{got:?} vs {want:?}"
        );
    }
}
