// antd's Tooltip in a chunk of its own, for DateTime.tsx to fetch when a time is first pointed at.
export { Tooltip } from 'antd';
