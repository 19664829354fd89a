import { xmlCheck } from './check.js';
import { xmlFormat } from './format.js';
import { xmlInspect } from './inspect.js';
import { xmlQuery } from './query.js';
import type { ToolDefinition } from './tool.js';
import { xmlValidate } from './validate.js';

/** The five tools, in the order a model should meet them (docs/behaviour.md §1.2: never a sixth). */
export const tools = [xmlInspect, xmlQuery, xmlCheck, xmlValidate, xmlFormat] as unknown as ToolDefinition[];
