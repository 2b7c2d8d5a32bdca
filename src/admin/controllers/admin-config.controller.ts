import { Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { LockChain } from '../../chain/lock-chain.service.js';
import { InjectConfig } from '../../config/config.module.js';
import type { RampartConfig } from '../../config/config.types.js';
import { printableConfig } from '../../config/mask.js';
import { AdminController } from '../admin-route.decorator.js';
import { POLICY_STORE, PolicyStore } from '../policies/policy-store.js';
import { PolicySetView, policySetView } from '../policies/policy-view.js';

@AdminController('config')
export class AdminConfigController {
  constructor(
    @InjectConfig() private readonly config: RampartConfig,
    private readonly chain: LockChain,
    @Inject(POLICY_STORE) private readonly store: PolicyStore,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'The running configuration (secrets masked), installed locks and the policy set in force with its version',
  })
  @ApiOkResponse({
    description:
      '`config` is the boot configuration without policies; `policySet` is what this instance runs now',
  })
  read(): { config: unknown; installedLocks: string[]; store: string; policySet: PolicySetView } {
    const { policies: _bootPolicies, ...rest } = this.config;
    return {
      config: printableConfig(rest as RampartConfig),
      installedLocks: this.chain.installed(),
      store: this.store.kind,
      policySet: policySetView(this.chain.current()),
    };
  }
}
