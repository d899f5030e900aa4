// What each section hands the report: figures (a spread, a unit, maybe a goal
// judged on the median), the commands that produced them, and notes.
import type { Spread } from "./stats.js";

export interface Goal {
  op: "<=" | ">=";
  value: number;
}

export interface Figure {
  name: string;
  unit: string;
  value: Spread;
  goal?: Goal;
  /** Whether the median meets the goal. */
  pass?: boolean;
}

export interface Section {
  id: string;
  title: string;
  figures: Figure[];
  commands: string[];
  notes: string[];
  /** Where one of the section's goals fails: what costs the most, from its own measurements. */
  biggestCost?: string;
  /** How long the section took to measure (bench/index.ts sets it), so a slow section shows itself. */
  durationSeconds?: number;
}

/** Whether every goal of the section is met. */
export function goalsHold(section: Section): boolean {
  return section.figures.every((f) => f.pass !== false);
}

export function figure(name: string, unit: string, value: Spread, goal?: Goal): Figure {
  if (!goal) return { name, unit, value };
  const pass = goal.op === "<=" ? value.median <= goal.value : value.median >= goal.value;
  return { name, unit, value, goal, pass };
}
