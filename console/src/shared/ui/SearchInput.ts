// antd's Input.Search on its own: `Input` from antd's index brings its text area, password and
// one-time-code inputs with it (some 7 KB a page's first load does without). The same module antd's
// index uses (both resolve to antd/es/).
export { default as SearchInput } from 'antd/es/input/Search';
