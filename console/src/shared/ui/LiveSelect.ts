// antd's select in a chunk of its own, for DeferredSelect.tsx to fetch when a select is first opened.
import { Select } from 'antd';

export const LiveSelect = Select;
