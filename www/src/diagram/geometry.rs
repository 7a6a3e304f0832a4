//! Rectangles and points in the diagram's coordinates (SVG user units), and where a straight connection
//! between two boxes leaves one and enters the other.

/// A box on the diagram, in whole user units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Rect {
    pub const fn new(x: i32, y: i32, w: i32, h: i32) -> Rect {
        Rect { x, y, w, h }
    }

    pub fn right(&self) -> i32 {
        self.x + self.w
    }

    pub fn bottom(&self) -> i32 {
        self.y + self.h
    }

    pub fn centre(&self) -> Point {
        Point { x: f64::from(self.x) + f64::from(self.w) / 2.0, y: f64::from(self.y) + f64::from(self.h) / 2.0 }
    }

    /// Where the ray from the centre towards `towards` crosses the border (the centre itself when `towards` is
    /// the centre).
    pub fn border_towards(&self, towards: Point) -> Point {
        let c = self.centre();
        let (dx, dy) = (towards.x - c.x, towards.y - c.y);
        let (hw, hh) = (f64::from(self.w) / 2.0, f64::from(self.h) / 2.0);
        let scale_x = if dx == 0.0 { f64::INFINITY } else { hw / dx.abs() };
        let scale_y = if dy == 0.0 { f64::INFINITY } else { hh / dy.abs() };
        let scale = scale_x.min(scale_y);
        if !scale.is_finite() {
            return c;
        }
        Point { x: c.x + dx * scale, y: c.y + dy * scale }
    }

    /// Whether two boxes share any area (the layout's tests check nothing overlaps).
    #[cfg(test)]
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.right() && other.x < self.right() && self.y < other.bottom() && other.y < self.bottom()
    }

    /// Whether `other` lies wholly inside this box.
    #[cfg(test)]
    pub fn contains(&self, other: &Rect) -> bool {
        other.x >= self.x && other.y >= self.y && other.right() <= self.right() && other.bottom() <= self.bottom()
    }
}

impl Point {
    /// The point a fraction `t` (0 → self, 1 → `to`) of the way to `to`.
    pub fn lerp(self, to: Point, t: f64) -> Point {
        Point { x: self.x + (to.x - self.x) * t, y: self.y + (to.y - self.y) * t }
    }

    /// The direction from self to `to`, in degrees clockwise from the x axis (SVG's rotate()).
    pub fn angle_to(self, to: Point) -> f64 {
        (to.y - self.y).atan2(to.x - self.x).to_degrees()
    }
}

/// The straight connection between two boxes: from the border of `from` to the border of `to`, along the line
/// between their centres.
pub fn connect(from: Rect, to: Rect) -> (Point, Point) {
    (from.border_towards(to.centre()), to.border_towards(from.centre()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Point, b: Point) -> bool {
        (a.x - b.x).abs() < 1e-9 && (a.y - b.y).abs() < 1e-9
    }

    #[test]
    fn a_vertical_connection_leaves_the_bottom_and_enters_the_top() {
        let (a, b) = connect(Rect::new(0, 0, 100, 40), Rect::new(0, 100, 100, 20));
        assert!(close(a, Point { x: 50.0, y: 40.0 }));
        assert!(close(b, Point { x: 50.0, y: 100.0 }));
    }

    #[test]
    fn a_diagonal_connection_crosses_the_nearer_side() {
        // Centres (50, 20) and (350, 120): the line is shallow, so it leaves through the right side.
        let (a, b) = connect(Rect::new(0, 0, 100, 40), Rect::new(300, 100, 100, 40));
        assert!(close(a, Point { x: 100.0, y: 20.0 + 100.0 * 50.0 / 300.0 }));
        assert!(close(b, Point { x: 300.0, y: 120.0 - 100.0 * 50.0 / 300.0 }));
    }

    #[test]
    fn a_box_connected_to_itself_gives_its_centre() {
        let r = Rect::new(10, 10, 20, 20);
        assert_eq!(connect(r, r), (r.centre(), r.centre()));
    }

    #[test]
    fn lerp_and_angle() {
        let (a, b) = (Point { x: 0.0, y: 0.0 }, Point { x: 10.0, y: 10.0 });
        assert!(close(a.lerp(b, 0.5), Point { x: 5.0, y: 5.0 }));
        assert!((a.angle_to(b) - 45.0).abs() < 1e-9);
        assert!((b.angle_to(a) + 135.0).abs() < 1e-9);
    }

    #[test]
    fn overlap_and_containment() {
        let outer = Rect::new(0, 0, 100, 100);
        assert!(outer.contains(&Rect::new(10, 10, 90, 90)));
        assert!(!outer.contains(&Rect::new(10, 10, 91, 10)));
        assert!(outer.overlaps(&Rect::new(99, 99, 10, 10)));
        assert!(!outer.overlaps(&Rect::new(100, 0, 10, 10)), "touching edges do not overlap");
    }
}
