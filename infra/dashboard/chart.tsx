// Hourly verdict counts as stacked bars, drawn as SVG on the server: no
// script, no charting library, the same picture with JavaScript off. Each
// outcome has its colour and its pattern name in the legend; fleet
// revisions are dashed lines on the time axis, each with its change as a
// label, so what a promotion did shows where it happened.
import { OUTCOMES } from "../../shared/counts/index.js";

export type Outcome = (typeof OUTCOMES)[number];
export type Tally = Record<Outcome, number>;
export const emptyTally = (): Tally => ({ allow: 0, deny: 0, warn: 0, audit: 0, error: 0, exempted: 0 });

export interface Marker {
  /** Milliseconds since the epoch. */
  at: number;
  label: string;
}

const WIDTH = 960;
const HEIGHT = 260;
const LEFT = 56;
const BOTTOM = 28;
const TOP = 16;

/** The tick values of an axis up to `max`: 0 and about four round steps. */
function ticks(max: number): number[] {
  if (max <= 0) return [0];
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const values: number[] = [];
  for (let v = 0; v <= max + step / 2; v += step) values.push(v);
  return values;
}

const hourLabel = (hour: number) => new Date(hour * 3_600_000).toISOString().slice(5, 13).replace("T", " ") + "h";

export function StackedBars(props: { id: string; title: string; fromHour: number; hours: number; tallies: ReadonlyMap<number, Tally>; markers: readonly Marker[] }) {
  const { fromHour, hours, tallies } = props;
  const totals = [...tallies.values()].map((tally) => OUTCOMES.reduce((sum, outcome) => sum + tally[outcome], 0));
  const max = Math.max(0, ...totals);
  const axis = ticks(max);
  const top = axis.at(-1) || 1;
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / hours;
  const bar = Math.max(1, slot * 0.8);
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight;
  const labelEvery = Math.ceil(hours / 8);
  const sum = totals.reduce((a, b) => a + b, 0);
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${props.id}-title ${props.id}-desc`}>
      <title id={`${props.id}-title`}>{props.title}</title>
      <desc id={`${props.id}-desc`}>{`${sum} counted over ${hours} hours, stacked by outcome; the table below has every figure.`}</desc>
      {axis.map((value) => (
        <g class="tick">
          <line x1={LEFT} x2={WIDTH - 8} y1={y(value)} y2={y(value)} />
          <text x={LEFT - 6} y={y(value) + 4} text-anchor="end">
            {String(value)}
          </text>
        </g>
      ))}
      {Array.from({ length: hours }, (_, index) => {
        const hour = fromHour + index;
        const tally = tallies.get(hour);
        const x = LEFT + index * slot + (slot - bar) / 2;
        let base = 0;
        return (
          <g>
            {tally &&
              OUTCOMES.filter((outcome) => tally[outcome] > 0).map((outcome) => {
                const height = (tally[outcome] / top) * plotHeight;
                base += tally[outcome];
                return (
                  <rect class={`o-${outcome}`} x={x.toFixed(1)} width={bar.toFixed(1)} y={y(base).toFixed(1)} height={height.toFixed(1)}>
                    <title>{`${hourLabel(hour)}: ${outcome} ${tally[outcome]}`}</title>
                  </rect>
                );
              })}
            {index % labelEvery === 0 && (
              <text class="hour" x={(LEFT + index * slot + slot / 2).toFixed(1)} y={HEIGHT - 8} text-anchor="middle">
                {hourLabel(hour)}
              </text>
            )}
          </g>
        );
      })}
      {props.markers
        .filter((marker) => marker.at >= fromHour * 3_600_000 && marker.at < (fromHour + hours) * 3_600_000)
        .map((marker, index) => {
          const x = LEFT + ((marker.at / 3_600_000 - fromHour) / hours) * plotWidth;
          return (
            <g class="marker">
              <line x1={x.toFixed(1)} x2={x.toFixed(1)} y1={TOP} y2={TOP + plotHeight} />
              {/* Right of the line, or left of it in the chart's last third, so a recent change's label stays inside. */}
              <text x={(x > LEFT + plotWidth * 0.66 ? x - 3 : x + 3).toFixed(1)} y={TOP + 10 + (index % 3) * 12} text-anchor={x > LEFT + plotWidth * 0.66 ? "end" : "start"}>
                {marker.label}
              </text>
            </g>
          );
        })}
    </svg>
  );
}

export function Legend() {
  return (
    <ul class="legend">
      {OUTCOMES.map((outcome) => (
        <li>
          <span class={`swatch o-${outcome}`} aria-hidden="true" />
          {outcome}
        </li>
      ))}
    </ul>
  );
}
