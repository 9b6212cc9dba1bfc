import { originSecretRotationHandler } from '../../lib/runtime/origin-secret-rotation.ts';

/** Secrets Manager's rotation schedule: one step of rotating CloudFront's origin secret (lib/jobs/rotate-origin-secret.ts). */
export const handler = originSecretRotationHandler();
