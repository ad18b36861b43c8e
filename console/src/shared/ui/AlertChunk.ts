// antd's Alert in a chunk of its own, for DeferredAlert.tsx to fetch when an alert is first shown.
export { Alert } from 'antd';
