/**
 * The sequences area's public entry: what a customer's page shows of it (the customer's enrolments
 * in sequences). Its pages (the sequences, a sequence's editor, funnel and enrolments) are routes of their own.
 */
export { CustomerEnrollments } from './components/CustomerEnrollments.tsx';
