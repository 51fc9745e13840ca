// Small line charts drawn on a canvas: the last 120 points of one or more series, the y axis from 0 to
// the largest value shown. Each draw sets data-points on the canvas (how many points it drew).

const COLORS = ['#1f6feb', '#cf222e', '#1a7f37', '#9a6700', '#8250df', '#bf3989'];
const KEEP = 120;

export class LineChart {
  /** @param names the series, in the order values are given to push() */
  constructor(canvas, names) {
    this.canvas = canvas;
    this.names = names;
    this.points = []; // arrays of values, oldest first
  }

  push(values) {
    this.points.push(values);
    if (this.points.length > KEEP) {
      this.points.shift();
    }
    this.draw();
  }

  draw() {
    const c = this.canvas;
    const g = c.getContext('2d');
    const w = c.width;
    const h = c.height;
    const pad = 18;
    g.clearRect(0, 0, w, h);
    let max = 0;
    for (const p of this.points) {
      for (const v of p) {
        max = Math.max(max, v);
      }
    }
    max = max > 0 ? max * 1.1 : 1;
    g.strokeStyle = '#d1d9e0';
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(pad, h - pad + 0.5);
    g.lineTo(w, h - pad + 0.5);
    g.stroke();
    g.fillStyle = '#59636e';
    g.font = '10px system-ui, sans-serif';
    g.fillText(format(max), 2, 10);
    g.fillText('0', 2, h - pad);
    const step = (w - pad) / (KEEP - 1);
    const x0 = w - step * (this.points.length - 1);
    let drawn = 0;
    this.names.forEach((name, s) => {
      g.strokeStyle = COLORS[s % COLORS.length];
      g.lineWidth = 2;
      g.beginPath();
      this.points.forEach((p, i) => {
        const x = x0 + i * step;
        const y = h - pad - (p[s] / max) * (h - pad - 12);
        if (i === 0) {
          g.moveTo(x, y);
        } else {
          g.lineTo(x, y);
        }
        drawn++;
      });
      if (this.points.length === 1) {
        g.arc(x0, h - pad - (this.points[0][s] / max) * (h - pad - 12), 1.5, 0, Math.PI * 2);
      }
      g.stroke();
      if (this.names.length > 1) {
        g.fillStyle = COLORS[s % COLORS.length];
        g.fillText(name, pad + 30 + s * 60, 10);
      }
    });
    c.dataset.points = String(drawn);
  }
}

/** A number short enough for a chart's label. */
export function format(v) {
  if (v >= 1e6) {
    return (v / 1e6).toFixed(1) + 'M';
  }
  if (v >= 1e3) {
    return (v / 1e3).toFixed(1) + 'k';
  }
  return v >= 10 ? v.toFixed(0) : v.toFixed(2);
}
