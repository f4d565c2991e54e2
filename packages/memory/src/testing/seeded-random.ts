export { seededRandom } from '@nexus/testkit';
